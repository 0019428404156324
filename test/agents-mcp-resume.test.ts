// The real CLIs across a relay restart (their agent process outlives the relay: the keeper)
// and after an eviction at the maxMcpSessions cap: the relay takes up an MCP session id it
// does not hold, sent with a valid agent token, so the next turn's relay_tool call gets a
// real answer. Each test also notes what the pinned CLI does (docs/operations.md, "MCP sessions after a restart").
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeAnthropic, toolResults, type MessagesCall } from "./helpers/fake-anthropic.ts";
import { FakeOpenAI } from "./helpers/fake-openai.ts";
import { AGENTS_CACHE, agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { claudeAgent, copilotAgent, grokAgent, planPrompt } from "./helpers/relay-plan.ts";
import { TURN_MS, createSession, say } from "./helpers/agents-e2e.ts";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

// Each test's relay and model server end with it (agents are heavy on a shared machine).
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c().catch(() => {});
});

const plan = (when: string) =>
  planPrompt(
    [{ action: "list_sessions", relay: "this" }],
    `List the sessions with relay_tool (${when} the restart), then report.`,
  );

/** The agent processes the data folder's keeper holds (its children). */
function keptPids(relay: TestRelay): number[] {
  try {
    const keeper = readFileSync(join(relay.dataDir, "keeper.pid"), "utf8").trim();
    return execFileSync("pgrep", ["-P", keeper], { encoding: "utf8" }).split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Claude Code's own log of its "relay" MCP connection (it keeps one per start, under the
 * XDG cache, in a folder named after its working directory: the agent HOME here). */
function claudeMcpLog(home: string): string {
  const dir = join(
    AGENTS_CACHE,
    "xdg-cache",
    "claude-cli-nodejs",
    home.replace(/[^a-zA-Z0-9]/g, "-"),
    "mcp-logs-relay",
  );
  if (!existsSync(dir)) return "";
  return readdirSync(dir)
    .map((f) => readFileSync(join(dir, f), "utf8"))
    .join("");
}
const connects = (log: string) => log.split("\n").filter((l) => l.includes("Successfully connected")).length;

/** The relay's log lines saying it took up an MCP session of `session` again. */
const revivals = (relay: TestRelay, session: string) =>
  relay.output.split("\n").filter((l) => l.includes("[mcp] MCP session") && l.includes(session));

/** The relay_tool results the model server received (tool_result blocks answering relay_tool). */
function claudeRelayResults(calls: MessagesCall[]): { text: string; isError: boolean }[] {
  return calls.flatMap((c) => toolResults(c).filter((r) => r.name === "mcp__relay__relay_tool"));
}

test("Claude Code: a turn calls relay_tool, the relay is SIGKILLed and stays down until Claude Code has spent its reconnect attempts, then comes back on the same port: the same agent process's next relay_tool call gets a real answer", {
  skip: missingCli("claude"),
  timeout: 4 * TURN_MS,
}, async () => {
  const fake = await FakeAnthropic.start({ apiKey: "sk-owner-key", script: claudeAgent });
  closers.push(() => fake.close());
  const env = agentRelayEnv(["claude"], { ANTHROPIC_BASE_URL: fake.baseUrl });
  const relay = await TestRelay.start({ env, settings: { claudeApiKey: "sk-owner-key" } });
  closers.push(() => relay.stop());
  await availableProvider(relay, "claude-api");
  const session = await createSession(relay, { provider: "claude-api", title: "Across a restart" });
  const first = await say(relay, session, plan("before"));
  assert.notEqual(first.meta?.status, "error", first.text);
  assert.match(first.text, /step 1: sessions=\d+/);
  const before = claudeRelayResults(fake.mainCalls);
  assert.ok(before.length >= 1 && before.every((r) => !r.isError), JSON.stringify(before));
  const pids = keptPids(relay);
  assert.equal(pids.length, 1, `one agent process: ${pids}`);
  assert.equal(connects(claudeMcpLog(env.HOME!)), 1, "Claude Code logs its MCP connections where this test looks");

  // Claude Code (2.1.318) does not keep its MCP session across a restart: its GET stream
  // drops and it connects anew with a backoff of 1, 2, 4, 8, 16 s, then only now and then in
  // the background ("Reconnect attempts spent") — and in ~1 of 8 restarts never. A relay down
  // past its fast attempts leaves relay_tool disconnected ("Its MCP server 'relay' has
  // disconnected") on every run, like that case: the relay must bring it back itself.
  const port = Number(new URL(relay.url).port);
  await relay.kill();
  await relay.waitFor(() => /Still failing after \d+ attempts|Reconnect gave up/.test(claudeMcpLog(env.HOME!)), 90_000);
  await relay.boot(port);
  fake.reset();
  // At once, without waiting for the CLI: the relay asks it to reconnect before the prompt.
  const second = await say(relay, session, plan("after"));
  assert.notEqual(second.meta?.status, "error", second.text);
  assert.deepEqual(keptPids(relay), pids, "the same agent process ran the turn (no Kill session)");
  const after = claudeRelayResults(fake.mainCalls);
  assert.equal(after.length, 1, JSON.stringify(after));
  assert.equal(after[0].isError, false, after[0].text);
  const answer = JSON.parse(after[0].text.slice(after[0].text.indexOf("{"), after[0].text.lastIndexOf("}") + 1));
  assert.equal(answer.ok, true, after[0].text);
  assert.ok(
    answer.sessions.some((s: any) => s.id === session),
    "a real answer from the new relay",
  );
  assert.match(second.text, /step 1: sessions=\d+/);
  // The reconnect was the relay's own step: in its log, not in the conversation, no model request.
  assert.match(relay.output, /asked to reconnect relay_tool after the relay restart: done/);
  assert.ok(connects(claudeMcpLog(env.HOME!)) >= 2, "a new MCP connection");
  const messages = (await relay.session(session)).messages;
  assert.deepEqual(
    messages.map((m: any) => m.role),
    ["user", "agent", "user", "agent"],
  );
  assert.ok(
    !messages.some((m: any) => /\/mcp|reconnect/i.test(m.text) || /\/mcp/.test(JSON.stringify(m.meta ?? {}))),
    JSON.stringify(messages.at(-1)),
  );
  assert.ok(
    !JSON.stringify(fake.calls.map((c) => c.body)).includes("/mcp reconnect"),
    "the command never reached the model",
  );
});

test("Grok: the same across a restart on the same port", {
  skip: missingCli("grok"),
  timeout: 4 * TURN_MS,
}, async () => {
  const fake = await FakeOpenAI.start({
    apiKey: "test-key",
    models: ["grok-test-a", "grok-test-b"],
    script: grokAgent,
  });
  closers.push(() => fake.close());
  const relay = await TestRelay.start({
    env: agentRelayEnv(["grok"], { OAR_GROK_BASE_URL: fake.baseUrl }),
    settings: { xaiApiKey: "test-key" },
  });
  closers.push(() => relay.stop());
  await availableProvider(relay, "grok");
  const session = await createSession(relay, { provider: "grok", title: "Across a restart" });
  const first = await say(relay, session, plan("before"));
  assert.notEqual(first.meta?.status, "error", first.text);
  assert.match(first.text, /step 1: sessions=\d+/);
  // Grok 1.0.41 sends its old MCP session id: taken up again (without it, it re-initializes
  // after the 404 and retries, which works too).
  await askAgainAfterRestart(relay, fake, session);
});

test("Claude Code: its MCP session evicted at the maxMcpSessions cap, its next relay_tool call still gets a real answer", {
  skip: missingCli("claude"),
  timeout: 4 * TURN_MS,
}, async () => {
  const fake = await FakeAnthropic.start({ apiKey: "sk-owner-key", script: claudeAgent });
  closers.push(() => fake.close());
  const env = agentRelayEnv(["claude"], { ANTHROPIC_BASE_URL: fake.baseUrl, OAR_MCP_SESSIONS_MAX: "1" });
  const relay = await TestRelay.start({ env, settings: { claudeApiKey: "sk-owner-key" } });
  closers.push(() => relay.stop());
  await availableProvider(relay, "claude-api");
  const session = await createSession(relay, { provider: "claude-api", title: "Evicted" });
  const helper = await relay.createSession({ title: "Helper" });
  const first = await say(relay, session, plan("before"));
  assert.match(first.text, /step 1: sessions=\d+/);
  // Another agent's MCP session takes the only slot: Claude's (idle) is evicted.
  const other = await relay.mcp(helper);
  assert.equal((await other.call({ action: "list_relays" })).ok, true);
  fake.reset();
  const second = await say(relay, session, plan("after"));
  assert.notEqual(second.meta?.status, "error", second.text);
  const after = claudeRelayResults(fake.mainCalls);
  // Claude Code 2.1.318 sends its old MCP session id, which is taken up again (it did not
  // re-initialize: one connection in its log). Answered 404, that call failed with "MCP
  // server "relay" is not connected" while it re-initialized.
  assert.equal(revivals(relay, session).length, 1, relay.output.slice(-2000));
  assert.equal(connects(claudeMcpLog(env.HOME!)), 1);
  assert.equal(after.length, 1, JSON.stringify(after));
  assert.equal(after[0].isError, false, after[0].text);
  assert.match(second.text, /step 1: sessions=\d+/);
});

test("Copilot: the same across a restart on the same port", {
  skip: missingCli("copilot"),
  timeout: 4 * TURN_MS,
}, async () => {
  const fake = await FakeOpenAI.start({
    apiKey: "test-key",
    models: ["gpt-5.4", "gpt-5.4-mini"],
    script: copilotAgent,
  });
  closers.push(() => fake.close());
  const offline = {
    COPILOT_OFFLINE: "true",
    COPILOT_PROVIDER_BASE_URL: fake.baseUrl,
    COPILOT_PROVIDER_API_KEY: "test-key",
    COPILOT_MODEL: "gpt-5.4-mini",
  };
  const relay = await TestRelay.start({ env: agentRelayEnv(["copilot"], offline) });
  closers.push(() => relay.stop());
  await availableProvider(relay, "copilot");
  const session = await createSession(relay, { provider: "copilot", model: "gpt-5.4", title: "Across a restart" });
  const first = await say(relay, session, plan("before"));
  assert.notEqual(first.meta?.status, "error", first.text);
  assert.match(first.text, /step 1: sessions=\d+/);
  // Copilot 1.0.102 sends its old MCP session id: taken up again (answered 404, it
  // re-initializes and retries, which works too).
  await askAgainAfterRestart(relay, fake, session);
});

/** SIGKILL, start on the same port, and a second relay_tool turn on the same agent process:
 * its old MCP session id is taken up once, and the model's final line summarizes a real
 * list (not an error). */
async function askAgainAfterRestart(relay: TestRelay, fake: { reset(): void }, session: string): Promise<void> {
  const pids = keptPids(relay);
  assert.equal(pids.length, 1, `one agent process: ${pids}`);
  await relay.restart({ samePort: true });
  fake.reset();
  const second = await say(relay, session, plan("after"));
  assert.equal(revivals(relay, session).length, 1, relay.output.slice(-2000));
  assert.notEqual(second.meta?.status, "error", second.text);
  assert.deepEqual(keptPids(relay), pids, "the same agent process ran the turn");
  assert.match(second.text, /step 1: sessions=\d+/, second.text);
}

/** The provider's key is saved just after start, so the probe at start may have run without it
 * (saving it probes again): wait until the relay says it is available. */
async function availableProvider(relay: TestRelay, id: string): Promise<void> {
  let last: any;
  await relay
    .waitFor(async () => {
      last = (await relay.api("GET", "/api/providers")).json.providers.find((x: any) => x.id === id);
      return last?.available && last.checkedAt && !last.checking ? last : undefined;
    }, TURN_MS)
    .catch(() => assert.fail(`${id} not available: ${last?.reason}`));
}
