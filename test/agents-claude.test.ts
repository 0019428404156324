// Claude for real (issue 9): a relay whose `claude` sessions run the pinned claude-agent-acp
// (Claude Code inside), with a local Anthropic Messages server as its model
// (ANTHROPIC_BASE_URL + ANTHROPIC_API_KEY in the relay's environment, which workers inherit).
// The fake model follows the plan in the owner's prompt, so what is tested is the real CLI
// and the relay: Claude's deferred tool search, relay_tool over MCP, permission requests,
// set_config_option for the model, usage, and sign-in failures.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { FakeAnthropic, lastUserText, toolsCalled } from "./helpers/fake-anthropic.ts";
import { agentRelayEnv, missingCli } from "./helpers/agent-clis.ts";
import { claudeAgent, planPrompt } from "./helpers/relay-plan.ts";
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

const skip = missingCli("claude");
let relay: TestRelay;
let fake: FakeAnthropic;
let helper: string;

before(async () => {
  if (skip) return;
  fake = await FakeAnthropic.start({ apiKey: "test-key", script: claudeAgent });
  relay = await TestRelay.start({
    env: agentRelayEnv(["claude"], { ANTHROPIC_BASE_URL: fake.baseUrl, ANTHROPIC_API_KEY: "test-key" }),
  });
  helper = await relay.createSession({ title: "Helper" });
});
after(async () => {
  await relay?.stop();
  await fake?.close();
});

test("the probe finds Claude installed and signed in, with the models Claude Code offers", {
  skip,
  timeout: TURN_MS,
}, async () => {
  const p = await checkedProvider(relay, "claude");
  assert.equal(p.available, true, p.reason);
  // Claude Code advertises aliases ("sonnet", named "Sonnet 5.5"); the relay lists Anthropic ids.
  assert.ok(p.models.includes("claude-sonnet-5-5"), JSON.stringify(p.models));
});

let claudeSession: string;

test("agent mode: Claude finds relay_tool through its tool search, reads, sends to a scripted session and reports its reply", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  fake.reset();
  claudeSession = await createSession(relay, { provider: "claude", title: "Claude worker" });
  const reply = await say(
    relay,
    claudeSession,
    planPrompt([
      { action: "list_sessions", relay: "this" },
      { action: "read_session", relay: "this", session: helper },
      { action: "send", relay: "this", session: helper, text: "/reply pong from the helper", wait_seconds: 90 },
    ]),
  );
  assert.notEqual(reply.meta?.status, "error", reply.text);
  assert.match(reply.text, /step 1: sessions=\d+/);
  assert.match(reply.text, /step 2: messages=\d+/);
  // The scripted helper's reply starts with its /reply line (then echoes the prompt's header).
  assert.match(reply.text, /step 3: status=done reply="pong from the helper/);
  // The deferred tool was loaded by name first, then called as mcp__relay__relay_tool.
  const main = fake.mainCalls;
  assert.ok(toolsCalled(main.at(-1)!).includes("ToolSearch"), "Claude Code was asked to search for the tool");
  assert.ok(
    main.some((c) => c.tools.includes("mcp__relay__relay_tool")),
    "relay_tool offered after the search",
  );
  // The helper got the prompt from this agent.
  const h = await relay.session(helper);
  assert.ok(
    h.messages.some((m: any) => m.from?.session === claudeSession && /pong from the helper/.test(m.text)),
    "the helper's message came from the Claude session",
  );
  // What the agent did is kept with the reply; the relay_tool calls are marked as such.
  const send = relayActivity(reply, "send");
  assert.ok(send, JSON.stringify(reply.meta?.activity));
  assert.equal(send.status, "completed");
  assert.ok(relayActivity(reply, "list_sessions"));
});

test("usage Claude reports is kept with the reply and in the usage meters", { skip, timeout: TURN_MS }, async () => {
  const s = await relay.session(claudeSession);
  const reply = s.messages.filter((m: any) => m.role === "agent").at(-1);
  assert.ok(reply.meta?.usage?.inputTokens > 0, JSON.stringify(reply.meta?.usage));
  assert.ok(reply.meta.usage.outputTokens > 0);
  const u = await usageOf(relay, "claude");
  assert.equal(u.status, "tracked", JSON.stringify(u));
  assert.ok(u.meters.length > 0);
});

test("ask mode: Claude's permission request is a card; Allow runs the tool, Deny keeps it from running", {
  skip,
  timeout: 3 * TURN_MS,
}, async () => {
  assert.equal((await relay.api("PATCH", `/api/sessions/${claudeSession}`, { mode: "ask" })).status, 200);
  const plan = planPrompt([{ action: "list_sessions", relay: "this" }]);

  const m1 = await post(relay, claudeSession, plan);
  const card = await permissionCard(relay, claudeSession);
  const kinds = card.options.map((o: any) => o.kind);
  assert.ok(kinds.includes("allow_once") && kinds.includes("reject_once"), JSON.stringify(card.options));
  assert.equal((await relay.api("POST", `/api/cards/${card.id}`, { decision: "allow" })).json.status, "allowed");
  const allowed = await replyTo(relay, claudeSession, m1);
  assert.match(allowed.text, /step 1: sessions=\d+/);

  const m2 = await post(relay, claudeSession, plan);
  const card2 = await permissionCard(relay, claudeSession);
  assert.notEqual(card2.id, card.id);
  assert.equal((await relay.api("POST", `/api/cards/${card2.id}`, { decision: "deny" })).json.status, "denied");
  const denied = await replyTo(relay, claudeSession, m2);
  assert.match(denied.text, /step 1: not run/, "the tool did not run after Deny");
  assert.equal(relayActivity(denied, "list_sessions")?.status, "failed");
});

test("a model change reaches the model server: Claude Code asks for the new model", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  await relay.api("PATCH", `/api/sessions/${claudeSession}`, { mode: "agent", model: "claude-sonnet-5-5" });
  fake.reset();
  const reply = await say(relay, claudeSession, "Say hello.");
  assert.notEqual(reply.meta?.status, "error", reply.text);
  // The request that produced this reply asked for the new model. (Claude Code may still send
  // a background request of its own on the old one right after the switch.)
  // (After a switch Claude Code appends a system message naming the new model, so the
  // prompt is found as the last user text, not the last message.)
  const seen = fake.mainCalls.map((c) => `${c.n} ${c.model}: ${lastUserText(c).slice(0, 80)}`).join("\n");
  const answering = fake.mainCalls.filter((c) => /Say hello/.test(lastUserText(c)));
  assert.ok(answering.length > 0, seen);
  assert.deepEqual([...new Set(answering.map((c) => c.model))], ["claude-sonnet-5-5"], seen);
  assert.equal(reply.meta?.model ?? (await relay.session(claudeSession)).model, "claude-sonnet-5-5");
});

test("a wrong API key: the turn ends with an error in words, not a raw protocol line", {
  skip,
  timeout: 2 * TURN_MS,
}, async () => {
  fake.apiKey = "another-key"; // the relay's key is now refused with Anthropic's 401
  try {
    const reply = await say(relay, claudeSession, "Say hello.", 120_000);
    assert.equal(reply.meta?.status, "error", reply.text);
    // The words are the turn's error (the reply keeps what Claude Code printed, if anything).
    assert.match(reply.meta.error, /Claude/);
    assert.match(reply.meta.error, /sign|key|log ?in/i);
    assert.doesNotMatch(reply.meta.error, /^(Error: )?Authentication required$/);
  } finally {
    fake.apiKey = "test-key";
  }
});

test("no credentials: a turn fails in words naming what to run, and the provider becomes unavailable with that reason", {
  skip,
  timeout: 3 * TURN_MS,
}, async () => {
  const bare = await TestRelay.start({
    name: "bare",
    env: agentRelayEnv(["claude"], { ANTHROPIC_BASE_URL: fake.baseUrl }),
  });
  try {
    // Claude Code reports "not logged in" only when its own status check answers in time (5 s;
    // on a loaded machine it stays silent), so the probe may still count it as available:
    // then the first turn tells, and the relay marks the provider unavailable.
    await checkedProvider(bare, "claude");
    const made = await bare.api("POST", "/api/sessions", { provider: "claude", title: "unsigned" });
    if (made.status === 201) {
      const reply = await say(bare, made.json.id, "Say hello.");
      assert.equal(reply.meta?.status, "error", reply.text);
      assert.match(reply.meta.error, /Claude is not signed in on relay "bare": .* as \w+/);
    } else {
      assert.equal(made.json.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE");
    }
    const p = await bare.waitFor(
      async () =>
        (await bare.api("GET", "/api/providers")).json.providers.find((x: any) => x.id === "claude" && !x.available),
      TURN_MS,
    );
    assert.match(p.reason, /Claude is not signed in on relay "bare": .* as \w+/);
    const refused = await bare.api("POST", "/api/sessions", { provider: "claude", title: "again" });
    assert.equal(refused.json.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE");
    assert.match(refused.json.error, /not signed in/);
  } finally {
    await bare.stop();
  }
});
