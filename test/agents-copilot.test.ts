// Copilot for real (issue 9): a relay whose `copilot` sessions run the pinned Copilot CLI in
// its offline set-up (COPILOT_OFFLINE, COPILOT_PROVIDER_BASE_URL/API_KEY, COPILOT_MODEL in the
// relay's environment) against a local OpenAI-compatible server that follows the plan in the
// owner's prompt. Copilot offers relay_tool directly, as `relay-relay_tool`.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeOpenAI } from "./helpers/fake-openai.ts";
import { agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { copilotAgent, planPrompt } from "./helpers/relay-plan.ts";
import {
  TURN_MS,
  checkedProvider,
  createSession,
  permissionCard,
  post,
  relayActivity,
  replyTo,
  say,
  usageOf,
} from "./helpers/agents-e2e.ts";

const skip = missingCli("copilot");
let relay: TestRelay;
let fake: FakeOpenAI;
let helper: string;

const offline = (base: string, key: string) => ({
  COPILOT_OFFLINE: "true",
  COPILOT_PROVIDER_BASE_URL: base,
  COPILOT_PROVIDER_API_KEY: key,
  COPILOT_MODEL: "gpt-5.4-mini",
});

before(async () => {
  if (skip) return;
  fake = await FakeOpenAI.start({ apiKey: "test-key", models: ["gpt-5.4", "gpt-5.4-mini"], script: copilotAgent });
  relay = await TestRelay.start({ env: agentRelayEnv(["copilot"], offline(fake.baseUrl, "test-key")) });
  helper = await relay.createSession({ title: "Helper" });
});
after(async () => {
  await relay?.stop();
  await fake?.close();
});

test("the probe finds Copilot installed and set up", { skip, timeout: TURN_MS }, async () => {
  const p = await checkedProvider(relay, "copilot");
  assert.equal(p.available, true, p.reason);
});

let session: string;

test("agent mode: Copilot calls relay-relay_tool, sends to a scripted session and reports its reply; no card asked", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  fake.reset();
  session = await createSession(relay, { provider: "copilot", model: "gpt-5.4", title: "Copilot worker" });
  const reply = await say(
    relay,
    session,
    planPrompt([
      { action: "list_sessions", relay: "this" },
      { action: "read_session", relay: "this", session: helper },
      { action: "send", relay: "this", session: helper, text: "/reply pong for copilot", wait_seconds: 90 },
    ]),
  );
  assert.notEqual(reply.meta?.status, "error", reply.text);
  assert.match(reply.text, /step 1: sessions=\d+/);
  assert.match(reply.text, /step 2: messages=\d+/);
  assert.match(reply.text, /step 3: status=done reply="pong for copilot/);
  assert.ok(fake.calls[0].tools.includes("relay-relay_tool"), JSON.stringify(fake.calls[0].tools));
  // Copilot asks before every MCP call; in agent mode the relay allows once by itself.
  assert.equal((await relay.api("GET", `/api/cards?session=${session}`)).json.cards.length, 0);
  const h = await relay.session(helper);
  assert.ok(h.messages.some((m: any) => m.from?.session === session && /pong for copilot/.test(m.text)));
  assert.equal(relayActivity(reply, "send")?.status, "completed", JSON.stringify(reply.meta?.activity));
});

test("the session's model is the one the model server is asked for", { skip, timeout: TURN_MS }, async () => {
  // The turn above ran on the session's model (gpt-5.4), not Copilot's configured default.
  assert.deepEqual([...new Set(fake.calls.map((c) => c.model))], ["gpt-5.4"]);
});

test("usage Copilot reports is kept with the reply and in the usage meters", { skip, timeout: TURN_MS }, async () => {
  const reply = (await relay.session(session)).messages.filter((m: any) => m.role === "agent").at(-1);
  assert.ok(reply.meta?.usage?.inputTokens > 0, JSON.stringify(reply.meta?.usage));
  const u = await usageOf(relay, "copilot");
  assert.equal(u.status, "tracked", JSON.stringify(u));
});

test("ask mode: Copilot's permission request is a card; Allow runs the tool, Deny keeps it from running", {
  skip,
  timeout: 3 * TURN_MS,
}, async () => {
  assert.equal((await relay.api("PATCH", `/api/sessions/${session}`, { mode: "ask" })).status, 200);
  const plan = planPrompt([{ action: "list_sessions", relay: "this" }]);
  const m1 = await post(relay, session, plan);
  const card = await permissionCard(relay, session);
  assert.deepEqual(card.options.map((o: any) => o.kind).sort(), ["allow_always", "allow_once", "reject_once"]);
  assert.equal((await relay.api("POST", `/api/cards/${card.id}`, { decision: "allow" })).json.status, "allowed");
  assert.match((await replyTo(relay, session, m1)).text, /step 1: sessions=\d+/);

  const m2 = await post(relay, session, plan);
  const card2 = await permissionCard(relay, session);
  assert.equal((await relay.api("POST", `/api/cards/${card2.id}`, { decision: "deny" })).json.status, "denied");
  const denied = await replyTo(relay, session, m2);
  // Copilot ends the whole turn when a permission is refused ("Info: Operation cancelled by user").
  assert.doesNotMatch(denied.text, /sessions=/);
  assert.match(denied.text, /cancelled/i);
});

test("a model change reaches the model server", { skip, timeout: 2 * TURN_MS }, async () => {
  // Not COPILOT_MODEL (gpt-5.4-mini), so only the relay's session/set_model can bring it there.
  await relay.api("PATCH", `/api/sessions/${session}`, { mode: "agent", model: "claude-sonnet-5.5" });
  fake.reset();
  const reply = await say(relay, session, "Say hello.");
  assert.notEqual(reply.meta?.status, "error", reply.text);
  assert.deepEqual([...new Set(fake.calls.map((c) => c.model))], ["claude-sonnet-5.5"]);
});

test("a wrong key: the turn ends with an error in words", { skip, timeout: 2 * TURN_MS }, async () => {
  fake.apiKey = "another-key";
  try {
    const reply = await say(relay, session, "Say hello.");
    assert.equal(reply.meta?.status, "error", reply.text);
    assert.match(reply.meta.error, /Copilot/);
    assert.match(reply.meta.error, /key|sign|log ?in|401/i);
  } finally {
    fake.apiKey = "test-key";
  }
});

test("not signed in (HOME empty, no token): from the relay's start the provider reads unavailable with the command to run", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  const bare = await TestRelay.start({ name: "bare", env: agentRelayEnv(["copilot"]) });
  try {
    const signedOut = /^Copilot is not signed in on relay "bare": run `copilot login`.* as \w+/;
    // Copilot 1.0.102 without credentials: initialize lists its auth method (copilot-login),
    // and session/new answers -32000 "Authentication required" — which its probe reads, but
    // only after the CLI started (seconds). Asked in that window, both answers wait for it.
    const early = (await bare.api("GET", "/api/providers")).json.providers.find((p: any) => p.id === "copilot");
    assert.equal(early.checkedAt, null, "asked while the first check still runs");
    const asker = await bare.mcp(await bare.createSession({ title: "asker" }));
    const [refused, info] = await Promise.all([
      bare.api("POST", "/api/sessions", { provider: "copilot", title: "unsigned" }),
      asker.call({ action: "relay_info", relay: "this" }),
    ]);
    assert.equal(refused.json.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE", JSON.stringify(refused.json));
    assert.match(refused.json.error, /Copilot is not signed in on relay "bare": run `copilot login`/);
    const listed = info.providers.find((p: any) => p.id === "copilot");
    assert.equal(listed.available, false, JSON.stringify(listed));
    assert.match(listed.reason, signedOut);
    const p = await checkedProvider(bare, "copilot");
    assert.equal(p.available, false);
    assert.match(p.reason, signedOut);
  } finally {
    await bare.stop();
  }
});
