// A claim holds against a second real CLI (contract §10.1): the pinned Copilot CLI, in its
// offline set-up against a local OpenAI-compatible server that answers with Copilot's own
// `create` tool. Copilot writes files itself (it does not use the client's
// fs/write_text_file) and asks the client before an edit in ask mode; its permission request
// for a file another session claims is refused by the relay before any card, with the
// holder's words kept with the reply's tool call, and nothing is written (Copilot ends that
// turn: "Operation cancelled by user").
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeOpenAI, lastUserText, toolResults, type ChatCall } from "./helpers/fake-openai.ts";
import { agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { TURN_MS, say } from "./helpers/agents-e2e.ts";
import { cleanTemps, isolateGit, makeRepo } from "./helpers/git-repos.ts";

const skip = missingCli("copilot");
let relay: TestRelay;
let fake: FakeOpenAI;

/** Creates the file the prompt names with Copilot's `create` tool, then says what came back. */
function writer(call: ChatCall) {
  if (!call.tools.includes("create")) return { text: `create is not offered (tools: ${call.tools.join(", ")})` };
  const m = /\[\[write (\S+)\]\]/.exec(lastUserText(call));
  if (!m) return { text: "no file named" };
  const results = toolResults(call);
  if (!results.length)
    return { toolCalls: [{ name: "create", arguments: { path: m[1], file_text: "export const c = 3;\n" } }] };
  return { text: `result: ${results[0].text}` };
}

before(async () => {
  if (skip) return;
  isolateGit();
  fake = await FakeOpenAI.start({ apiKey: "test-key", models: ["gpt-5.4-mini"], script: writer });
  relay = await TestRelay.start({
    env: agentRelayEnv(["copilot"], {
      COPILOT_OFFLINE: "true",
      COPILOT_PROVIDER_BASE_URL: fake.baseUrl,
      COPILOT_PROVIDER_API_KEY: "test-key",
      COPILOT_MODEL: "gpt-5.4-mini",
    }),
  });
});
after(async () => {
  await relay?.stop();
  await fake?.close();
  cleanTemps();
});

test("Copilot's create of a claimed path: its permission request is refused with the claim's words, nothing is written", {
  skip,
  timeout: 3 * TURN_MS,
}, async () => {
  const repo = makeRepo({ "README.md": "hello\n", "src/a.ts": "export const a = 1;\n" });
  const holder = await relay.createSession({ title: "Holder", cwd: repo });
  const claim = await (await relay.mcp(holder)).call({ action: "claim", paths: ["src/**"], note: "moving src" });
  assert.equal(claim.ok, true, JSON.stringify(claim));
  const made = await relay.api("POST", "/api/sessions", {
    provider: "copilot",
    title: "Copilot writer",
    cwd: repo,
    branch: "copilot/work",
    mode: "ask",
  });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  const target = join(made.json.worktree.path, "src/c.ts");

  const reply = await say(relay, made.json.id, `Write the file. [[write ${target}]]`);
  assert.equal(existsSync(target), false, "nothing was written");
  // Copilot ends its turn on a refused permission with its own words (the model is not asked again).
  assert.equal(reply.text, "Info: Operation cancelled by user");
  assert.equal(
    (await relay.api("GET", `/api/cards?session=${made.json.id}`)).json.cards.length,
    0,
    "no card: refused before anyone is asked",
  );
  const write = reply.meta.activity.find((a: any) => a.kind === "tool" && a.toolKind === "edit");
  assert.ok(write, JSON.stringify(reply.meta.activity));
  const words = JSON.stringify(write);
  assert.ok(words.includes(`src/c.ts is claimed by session \\"Holder\\" (${holder})`), words);

  // A path nobody claims: the same request becomes the owner's card as usual. (Copilot's
  // `create` needs the file's folder to exist.)
  const free = join(made.json.worktree.path, "NOTES.md");
  const m = await relay.api("POST", `/api/sessions/${made.json.id}/messages`, {
    text: `Write the file. [[write ${free}]]`,
  });
  const card = await relay.waitFor(
    async () => (await relay.api("GET", `/api/cards?session=${made.json.id}`)).json.cards[0],
    TURN_MS,
  );
  assert.equal((await relay.api("POST", `/api/cards/${card.id}`, { decision: "allow" })).json.status, "allowed");
  await relay.waitFor(async () => existsSync(free) && readFileSync(free, "utf8") === "export const c = 3;\n", TURN_MS);
  assert.ok(m.json.message_id);
});
