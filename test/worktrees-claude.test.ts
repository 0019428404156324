// A claim holds against a real CLI (contract §10.1): the pinned claude-agent-acp (Claude Code
// inside) writes files itself and asks the client before an edit in ask mode; its permission
// request for a Write of a path another session claims is refused by the relay before any
// card, with the holder's words kept with the reply, and the file is not written. The model is
// a local Anthropic Messages server that answers with Claude Code's Write tool.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeAnthropic, lastUserText, toolResults, type MessagesCall } from "./helpers/fake-anthropic.ts";
import { agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { TURN_MS } from "./helpers/agents-e2e.ts";
import { claimHoldsAgainst } from "./helpers/claimed-edit.ts";
import { cleanTemps, isolateGit } from "./helpers/git-repos.ts";

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
  const { reply, write } = await claimHoldsAgainst(relay, {
    provider: "claude",
    title: "Claude writer",
    branch: "claude/work",
    free: "docs/free.md",
    content: "export const c = 3;\n",
  });
  assert.match(reply.text, /^result: /);
  assert.equal(write.status, "failed", JSON.stringify(reply.meta.activity));
});
