// A claim holds against a second real CLI (contract §10.1): the pinned Copilot CLI, in its
// offline set-up against a local OpenAI-compatible server that answers with Copilot's own
// `create` tool. Copilot writes files itself (it does not use the client's
// fs/write_text_file) and asks the client before an edit in ask mode; its permission request
// for a file another session claims is refused by the relay before any card, with the
// holder's words kept with the reply's tool call, and nothing is written (Copilot ends that
// turn: "Operation cancelled by user").
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeOpenAI, lastUserText, toolResults, type ChatCall } from "./helpers/fake-openai.ts";
import { agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { TURN_MS } from "./helpers/agents-e2e.ts";
import { claimHoldsAgainst } from "./helpers/claimed-edit.ts";
import { cleanTemps, isolateGit } from "./helpers/git-repos.ts";

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
  const { reply, write } = await claimHoldsAgainst(relay, {
    provider: "copilot",
    title: "Copilot writer",
    branch: "copilot/work",
    free: "NOTES.md",
    content: "export const c = 3;\n",
  });
  // Copilot ends its turn on a refused permission with its own words (the model is not asked
  // again). (Its `create` needs the file's folder to exist: the free file is at the root.)
  assert.equal(reply.text, "Info: Operation cancelled by user");
  assert.ok(write);
});
