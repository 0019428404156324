// Grok for real (issue 9): a relay whose `grok` sessions run the pinned Grok CLI against a
// local OpenAI-compatible server (`--xai-api-base-url`, passed by the relay from
// OAR_GROK_BASE_URL; the key is the owner's xaiApiKey setting). Grok lists the server's
// models, connects MCP after session/new (the relay waits for it before the first prompt),
// and reaches relay_tool only through `use_tool`.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeOpenAI } from "./helpers/fake-openai.ts";
import { agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { grokAgent, planPrompt } from "./helpers/relay-plan.ts";
import {
  TURN_MS,
  createSession,
  permissionCard,
  post,
  relayActivity,
  replyTo,
  say,
  usageOf,
} from "./helpers/agents-e2e.ts";

const skip = missingCli("grok");
let relay: TestRelay;
let fake: FakeOpenAI;
let helper: string;

before(async () => {
  if (skip) return;
  fake = await FakeOpenAI.start({ apiKey: "test-key", models: ["grok-test-a", "grok-test-b"], script: grokAgent });
  relay = await TestRelay.start({
    env: agentRelayEnv(["grok"], { OAR_GROK_BASE_URL: fake.baseUrl }),
    settings: { xaiApiKey: "test-key" },
  });
  helper = await relay.createSession({ title: "Helper" });
});
after(async () => {
  await relay?.stop();
  await fake?.close();
});

test("the probe finds Grok signed in with the key, with the models its API lists", {
  skip,
  timeout: TURN_MS,
}, async () => {
  // The key was saved just after start, so the probe at start may have run without it; saving
  // a provider's setting probes it again.
  let last: any;
  const p = await relay
    .waitFor(async () => {
      last = (await relay.api("GET", "/api/providers")).json.providers.find((x: any) => x.id === "grok");
      return last.available && last.checkedAt && !last.checking ? last : undefined;
    }, TURN_MS - 5_000)
    .catch(() => last);
  assert.equal(p.available, true, p.reason);
  assert.deepEqual(p.models, ["grok-test-a", "grok-test-b"]);
});

let session: string;

test("agent mode: the first prompt already has relay_tool; Grok calls it through use_tool and reports the scripted session's reply", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  fake.reset();
  session = await createSession(relay, { provider: "grok", model: "grok-test-a", title: "Grok worker" });
  const reply = await say(
    relay,
    session,
    planPrompt([
      { action: "list_sessions", relay: "this" },
      { action: "read_session", relay: "this", session: helper },
      { action: "send", relay: "this", session: helper, text: "/reply pong for grok", wait_seconds: 90 },
    ]),
  );
  assert.notEqual(reply.meta?.status, "error", reply.text);
  assert.match(reply.text, /step 1: sessions=\d+/);
  assert.match(reply.text, /step 2: messages=\d+/);
  assert.match(reply.text, /step 3: status=done reply="pong for grok/);
  // Grok lists "always allow" first; in agent mode the relay allows once and raises no card.
  assert.equal((await relay.api("GET", `/api/cards?session=${session}`)).json.cards.length, 0);
  assert.equal(relayActivity(reply, "send")?.status, "completed", JSON.stringify(reply.meta?.activity));
  assert.deepEqual([...new Set(fake.calls.map((c) => c.model))], ["grok-test-a"]);
});

test("usage Grok reports is kept with the reply and in the usage meters", { skip, timeout: TURN_MS }, async () => {
  const reply = (await relay.session(session)).messages.filter((m: any) => m.role === "agent").at(-1);
  assert.ok(reply.meta?.usage?.inputTokens > 0, JSON.stringify(reply.meta?.usage));
  const u = await usageOf(relay, "grok");
  assert.equal(u.status, "tracked", JSON.stringify(u));
});

test("ask mode: Grok's permission request is a card; Allow picks allow-once, Deny keeps the tool from running", {
  skip,
  timeout: 3 * TURN_MS,
}, async () => {
  assert.equal((await relay.api("PATCH", `/api/sessions/${session}`, { mode: "ask" })).status, 200);
  const plan = planPrompt([{ action: "list_sessions", relay: "this" }]);
  const m1 = await post(relay, session, plan);
  const card = await permissionCard(relay, session);
  assert.equal(card.options[0].kind, "allow_always", "Grok's own order, shown as it came");
  const allowed = await relay.api("POST", `/api/cards/${card.id}`, { decision: "allow" });
  assert.equal(allowed.json.status, "allowed");
  assert.equal(card.options.find((o: any) => o.id === allowed.json.optionId)?.kind, "allow_once");
  assert.match((await replyTo(relay, session, m1)).text, /step 1: sessions=\d+/);

  const m2 = await post(relay, session, plan);
  const card2 = await permissionCard(relay, session);
  assert.equal((await relay.api("POST", `/api/cards/${card2.id}`, { decision: "deny" })).json.status, "denied");
  // Grok ends the turn on a refused permission (no tool result reaches the model; the reply may be empty).
  const denied = await replyTo(relay, session, m2);
  assert.doesNotMatch(denied.text, /sessions=/);
  assert.notEqual(relayActivity(denied, "list_sessions")?.status, "completed");
});

test("a model change reaches the model server", { skip, timeout: 2 * TURN_MS }, async () => {
  await relay.api("PATCH", `/api/sessions/${session}`, { mode: "agent", model: "grok-test-b" });
  fake.reset();
  const reply = await say(relay, session, "Say hello.");
  assert.notEqual(reply.meta?.status, "error", reply.text);
  assert.deepEqual([...new Set(fake.calls.map((c) => c.model))], ["grok-test-b"]);
});

test("a wrong key: the provider is unavailable with the reason", { skip, timeout: 2 * TURN_MS }, async () => {
  fake.apiKey = "another-key";
  try {
    const check = await relay.api("POST", "/api/providers/grok/check");
    assert.equal(check.status, 200, JSON.stringify(check.json));
    assert.equal(check.json.available, false);
    assert.match(check.json.reason, /Grok is not signed in on relay "desk"/);
    const refused = await relay.api("POST", "/api/sessions", { provider: "grok", title: "refused key" });
    assert.equal(refused.json.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE");
  } finally {
    fake.apiKey = "test-key";
  }
});

test("a wrong key: a session made earlier fails its next turn with the sign-in reason", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  fake.apiKey = "another-key";
  try {
    await relay.api("POST", `/api/sessions/${session}/kill`);
    const reply = await say(relay, session, "Say hello.");
    assert.equal(reply.meta?.status, "error", reply.text);
    assert.match(reply.meta.error, /Grok is not signed in on relay "desk"/);
  } finally {
    fake.apiKey = "test-key";
  }
});
