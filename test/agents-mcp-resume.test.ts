// The real CLIs across a relay restart: their agent process outlives the relay (the keeper)
// and keeps the MCP session id it had; the new relay takes that id up again (the endpoint
// revives unknown ids sent with a valid agent token), so the next turn's relay_tool call
// gets a real answer, whatever the CLI would have done with a 404.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeAnthropic, toolResults, type MessagesCall } from "./helpers/fake-anthropic.ts";
import { FakeOpenAI } from "./helpers/fake-openai.ts";
import { agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { claudeAgent, grokAgent, planPrompt } from "./helpers/relay-plan.ts";
import { TURN_MS, createSession, say } from "./helpers/agents-e2e.ts";
import { workerPids } from "./helpers/core-helpers.ts";

const closers: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of closers.reverse()) await c().catch(() => {});
});

const plan = (when: string) => planPrompt([{ action: "list_sessions", relay: "this" }], `List the sessions with relay_tool (${when} the restart), then report.`);

/** The relay_tool results the model server received (tool_result blocks answering relay_tool). */
function claudeRelayResults(calls: MessagesCall[]): { text: string; isError: boolean }[] {
  return calls.flatMap((c) => toolResults(c).filter((r) => r.name === "mcp__relay__relay_tool"));
}

test("Claude Code: a turn calls relay_tool, the relay is SIGKILLed and comes back on the same port, the same agent process's next relay_tool call gets a real answer", { skip: missingCli("claude"), timeout: 4 * TURN_MS }, async () => {
  const fake = await FakeAnthropic.start({ apiKey: "sk-owner-key", script: claudeAgent });
  closers.push(() => fake.close());
  const relay = await TestRelay.start({ env: agentRelayEnv(["claude"], { ANTHROPIC_BASE_URL: fake.baseUrl }), settings: { claudeApiKey: "sk-owner-key" } });
  closers.push(() => relay.stop());
  const session = await createSession(relay, { provider: "claude-api", title: "Across a restart" });
  const first = await say(relay, session, plan("before"));
  assert.notEqual(first.meta?.status, "error", first.text);
  assert.match(first.text, /step 1: sessions=\d+/);
  const before = claudeRelayResults(fake.mainCalls);
  assert.ok(before.length >= 1 && before.every((r) => !r.isError), JSON.stringify(before));
  const pids = workerPids(relay);
  assert.equal(pids.length, 1, `one agent process: ${pids}`);

  await relay.restart({ samePort: true });
  fake.reset();
  const second = await say(relay, session, plan("after"));
  assert.notEqual(second.meta?.status, "error", second.text);
  assert.deepEqual(workerPids(relay), pids, "the same agent process ran the turn");
  const after = claudeRelayResults(fake.mainCalls);
  assert.equal(after.length, 1, JSON.stringify(after));
  assert.equal(after[0].isError, false, after[0].text);
  const answer = JSON.parse(after[0].text.slice(after[0].text.indexOf("{"), after[0].text.lastIndexOf("}") + 1));
  assert.equal(answer.ok, true, after[0].text);
  assert.ok(answer.sessions.some((s: any) => s.id === session), "a real answer from the new relay");
  assert.match(second.text, /step 1: sessions=\d+/);
});

test("Grok: the same across a restart on the same port", { skip: missingCli("grok"), timeout: 4 * TURN_MS }, async () => {
  const fake = await FakeOpenAI.start({ apiKey: "test-key", models: ["grok-test-a", "grok-test-b"], script: grokAgent });
  closers.push(() => fake.close());
  const relay = await TestRelay.start({ env: agentRelayEnv(["grok"], { OAR_GROK_BASE_URL: fake.baseUrl }), settings: { xaiApiKey: "test-key" } });
  closers.push(() => relay.stop());
  const session = await createSession(relay, { provider: "grok", title: "Across a restart" });
  const first = await say(relay, session, plan("before"));
  assert.notEqual(first.meta?.status, "error", first.text);
  assert.match(first.text, /step 1: sessions=\d+/);
  const pids = workerPids(relay);
  assert.equal(pids.length, 1, `one agent process: ${pids}`);

  await relay.restart({ samePort: true });
  fake.reset();
  const second = await say(relay, session, plan("after"));
  assert.notEqual(second.meta?.status, "error", second.text);
  assert.deepEqual(workerPids(relay), pids, "the same agent process ran the turn");
  // The model's final line summarizes the tool result it received: a real list, not an error.
  assert.match(second.text, /step 1: sessions=\d+/, second.text);
});
