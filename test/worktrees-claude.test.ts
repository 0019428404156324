// A claim holds against a real CLI (contract §10.1): the pinned claude-agent-acp (Claude Code
// inside) writes files itself and asks the client before an edit in ask mode; its permission
// request for a Write of a path another session claims is refused by the relay before any
// card, with the holder's words kept with the reply, and the file is not written. The model is
// a local Anthropic Messages server that answers with Claude Code's Write tool.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeAnthropic, lastUserText, toolResults, type MessagesCall } from "./helpers/fake-anthropic.ts";
import { agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { TURN_MS, say } from "./helpers/agents-e2e.ts";
import { cleanTemps, isolateGit, makeRepo } from "./helpers/git-repos.ts";

const skip = missingCli("claude");
let relay: TestRelay;
let fake: FakeAnthropic;

/** Writes the file the prompt names with Claude Code's Write tool, then says what came back. */
function writer(call: MessagesCall) {
  if (!call.tools.includes("Write")) return { text: "ok" };
  const m = /\[\[write (\S+)\]\]/.exec(lastUserText(call));
  if (!m) return { text: "no file named" };
  const results = toolResults(call);
  if (!results.length)
    return { toolUses: [{ name: "Write", input: { file_path: m[1], content: "export const c = 3;\n" } }] };
  return { text: `result: ${results[0].text}` };
}

before(async () => {
  if (skip) return;
  isolateGit();
  fake = await FakeAnthropic.start({ apiKey: "test-key", script: writer });
  relay = await TestRelay.start({
    env: agentRelayEnv(["claude"], { ANTHROPIC_BASE_URL: fake.baseUrl, ANTHROPIC_API_KEY: "test-key" }),
  });
});
after(async () => {
  await relay?.stop();
  await fake?.close();
  cleanTemps();
});

test("Claude Code's Write of a claimed path: its permission request is refused with the claim's words, nothing is written", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  const repo = makeRepo({ "README.md": "hello\n", "src/a.ts": "export const a = 1;\n" });
  const holder = await relay.createSession({ title: "Holder", cwd: repo });
  const claim = await (await relay.mcp(holder)).call({ action: "claim", paths: ["src/**"], note: "moving src" });
  assert.equal(claim.ok, true, JSON.stringify(claim));
  const made = await relay.api("POST", "/api/sessions", {
    provider: "claude",
    title: "Claude writer",
    cwd: repo,
    branch: "claude/work",
    mode: "ask",
  });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  const target = join(made.json.worktree.path, "src/c.ts");

  const reply = await say(relay, made.json.id, `Write the file. [[write ${target}]]`);
  assert.equal(existsSync(target), false, "nothing was written");
  assert.match(reply.text, /^result: /);
  assert.equal(
    (await relay.api("GET", `/api/cards?session=${made.json.id}`)).json.cards.length,
    0,
    "no card: refused before anyone is asked",
  );
  const write = reply.meta.activity.find((a: any) => a.kind === "tool" && a.toolKind === "edit");
  assert.equal(write?.status, "failed", JSON.stringify(reply.meta.activity));
  const words = JSON.stringify(write);
  assert.ok(words.includes(`src/c.ts is claimed by session \\"Holder\\" (${holder})`), words);

  // A path nobody claims: the same request becomes the owner's card as usual.
  const free = join(made.json.worktree.path, "docs/free.md");
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
