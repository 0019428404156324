// Claude API for real (issue 9): the same Claude ACP adapter, billed to the owner's API key
// (the claudeApiKey setting, given to the worker as ANTHROPIC_API_KEY), against a local
// Anthropic Messages server (ANTHROPIC_BASE_URL in the relay's environment). Usage and cost
// feed the Claude API meters; the key missing makes the provider unavailable with a reason.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeAnthropic } from "./helpers/fake-anthropic.ts";
import { agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { claudeAgent, planPrompt } from "./helpers/relay-plan.ts";
import { TURN_MS, checkedProvider, createSession, relayActivity, say, usageOf } from "./helpers/agents-e2e.ts";

const skip = missingCli("claude");
let relay: TestRelay;
let fake: FakeAnthropic;
let helper: string;

before(async () => {
  if (skip) return;
  fake = await FakeAnthropic.start({ apiKey: "sk-owner-key", script: claudeAgent });
  relay = await TestRelay.start({
    env: agentRelayEnv(["claude"], { ANTHROPIC_BASE_URL: fake.baseUrl }),
    settings: { claudeApiKey: "sk-owner-key" },
  });
  helper = await relay.createSession({ title: "Helper" });
});
after(async () => {
  await relay?.stop();
  await fake?.close();
});

let session: string;

test("with the owner's key the worker starts, calls relay_tool and the scripted session's reply reaches the owner", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  assert.equal((await checkedProvider(relay, "claude-api")).available, true);
  fake.reset();
  session = await createSession(relay, { provider: "claude-api", title: "API worker" });
  const reply = await say(
    relay,
    session,
    planPrompt([
      { action: "list_sessions", relay: "this" },
      { action: "send", relay: "this", session: helper, text: "/reply pong for the API", wait_seconds: 90 },
    ]),
  );
  assert.notEqual(reply.meta?.status, "error", reply.text);
  assert.match(reply.text, /step 2: status=done reply="pong for the API/);
  assert.equal(relayActivity(reply, "send")?.status, "completed");
  // The owner's key is what reached the model server, as Claude Code sends it.
  assert.ok(fake.mainCalls.every((c) => c.headers["x-api-key"] === "sk-owner-key"));
  // Billed per token, it starts on the cheaper model (catalog default), applied through the CLI.
  assert.equal(fake.mainCalls.at(-1)!.model, "claude-sonnet-5-5");
});

test("tokens and cost are recorded: in the reply, and in the Claude API meters (monthly spend)", {
  skip,
  timeout: TURN_MS,
}, async () => {
  const reply = (await relay.session(session)).messages.filter((m: any) => m.role === "agent").at(-1);
  assert.ok(reply.meta?.usage?.inputTokens > 0, JSON.stringify(reply.meta?.usage));
  assert.ok(reply.meta.usage.costUsd > 0, "Claude Code reports the turn's cost");
  const u = await usageOf(relay, "claude-api");
  assert.equal(u.status, "tracked", JSON.stringify(u));
  assert.ok(JSON.stringify(u.meters).match(/spend|cost|usd|\$/i), JSON.stringify(u.meters));
});

test("update_session from another conversation changes the model; the server sees the new id", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  const caller = await relay.mcp(helper);
  const asking = caller.call({ action: "update_session", relay: "this", session, model: "claude-opus-5-5" });
  // Changing a session this conversation did not start asks the owner once (contract §5.3) —
  // but a conversation with no running turn is refused instead; PATCH is the owner's way.
  const r = await asking;
  if (r.code === "REMOTE_RELAY_NO_ACTIVE_TURN") {
    assert.equal((await relay.api("PATCH", `/api/sessions/${session}`, { model: "claude-opus-5-5" })).status, 200);
  } else {
    assert.equal(r.ok, true, JSON.stringify(r));
  }
  fake.reset();
  const reply = await say(relay, session, "Say hello.");
  assert.notEqual(reply.meta?.status, "error", reply.text);
  // The request that produced the reply (Claude Code may send a background one on the old model).
  assert.equal(
    fake.mainCalls.at(-1)!.model,
    "claude-opus-5-5",
    fake.mainCalls.map((c) => `${c.n} ${c.model}`).join(", "),
  );
});

test("a wrong key: the turn ends with an error in words", { skip, timeout: 2 * TURN_MS }, async () => {
  assert.equal((await relay.api("PATCH", "/api/settings", { claudeApiKey: "sk-wrong" })).status, 200);
  await relay.api("POST", `/api/sessions/${session}/kill`);
  try {
    const reply = await say(relay, session, "Say hello.", 120_000);
    assert.equal(reply.meta?.status, "error", reply.text);
    assert.match(reply.meta.error, /Claude API/);
    assert.match(reply.meta.error, /key/i);
  } finally {
    await relay.api("PATCH", "/api/settings", { claudeApiKey: "sk-owner-key" });
  }
});

test("no key: Claude API is unavailable with what to do, and sessions are refused", {
  skip,
  timeout: TURN_MS,
}, async () => {
  assert.equal((await relay.api("PATCH", "/api/settings", { claudeApiKey: "" })).status, 200);
  const p = (await relay.api("GET", "/api/providers")).json.providers.find((x: any) => x.id === "claude-api");
  assert.equal(p.available, false);
  assert.match(p.reason, /Claude API is not set up on this relay: add an API key in Settings → Providers/);
  const refused = await relay.api("POST", "/api/sessions", { provider: "claude-api", title: "no key" });
  assert.equal(refused.json.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE");
  await relay.api("PATCH", "/api/settings", { claudeApiKey: "sk-owner-key" });
});
