// Switching a Claude session's billing on send (relay_tool §8.2, since 0.9.18) and the Claude
// API key's monthly cap. Claude and Claude API sessions run the scripted agent through the
// test-only OAR_FAKE_PROVIDERS switch; whether Claude API is set up is the owner's setting,
// so each test sets it up or not.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay, type McpSession } from "./helpers/relay-process.ts";
import { sayDeciding, toolLines } from "./helpers/settings-kit.ts";

let relay: TestRelay; // Claude and Claude API (each with its own model list)
let noClaude: TestRelay; // Claude API only: the subscription is not set up there
let old: TestRelay; // OAR 0.9.17: cannot switch
let boss: string;
let mcp: McpSession;

async function startWith(fake: string, opts: Parameters<typeof TestRelay.start>[0] = {}) {
  process.env.OAR_FAKE_PROVIDERS = fake;
  try {
    return await TestRelay.start(opts);
  } finally {
    delete process.env.OAR_FAKE_PROVIDERS;
  }
}

before(async () => {
  relay = await startWith("claude=claude-opus-5-5|claude-sonnet-5-5,claude-api=claude-sonnet-5-5|claude-haiku-5");
  noClaude = await startWith("claude-api", { name: "keyonly", settings: { claudeApiKey: "sk-ant-test-key-0001" } });
  old = await startWith("claude", { name: "oldbox", emulateVersion: "0.9.17" });
  boss = await relay.createSession({ title: "biller" });
  mcp = await relay.mcp(boss);
});
after(() => Promise.all([relay.stop(), noClaude.stop(), old.stop()]));

const send = (session: string, more: Record<string, unknown>, via = mcp) =>
  via.call({ action: "send", relay: "this", session, text: "/model", ...more });
const state = async (r: TestRelay, id: string) => {
  const s = await r.session(id);
  return { provider: s.provider, model: s.model, messages: s.messages.length };
};
const setKey = (v: string | null) => relay.api("PATCH", "/api/settings", { claudeApiKey: v });

test("switch to the API key when it is not set up: refused with remoteCode, nothing sent, nothing switched", async () => {
  await setKey(null);
  const s = await relay.createSession({ title: "sub", provider: "claude", model: "claude-sonnet-5-5" });
  const before = await state(relay, s);
  const r = await send(s, { provider: "claude-api" });
  assert.equal(r.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE");
  assert.equal(r.remoteCode, "CLAUDE_API_NOT_SET_UP");
  assert.match(
    r.error,
    /^Relay "desk" cannot switch session "sub" to the Claude API key: Claude API is not set up on this relay.*Nothing was sent\.$/,
  );
  assert.deepEqual(await state(relay, s), before);
});

test("one call switches and sends, both ways; the session keeps its billing without provider", async () => {
  await setKey("sk-ant-test-key-0002");
  const s = await relay.createSession({ title: "flip", provider: "claude", model: "claude-sonnet-5-5" });
  let r = await send(s, { provider: "claude-api" });
  assert.equal(r.status, "done", JSON.stringify(r));
  assert.match(r.reply.text, /^claude-sonnet-5-5\n/);
  let now = await state(relay, s);
  assert.equal(now.provider, "claude-api");
  r = await send(s, {});
  assert.equal(r.status, "done");
  assert.equal((await state(relay, s)).provider, "claude-api");
  r = await send(s, { provider: "claude" });
  assert.equal(r.status, "done");
  now = await state(relay, s);
  assert.equal(now.provider, "claude");
  const list = (await mcp.call({ action: "list_sessions", relay: "this" })).sessions.find((x: any) => x.id === s);
  assert.equal(list.provider, "claude");
});

test("the session's model must be on the other side's list: UNKNOWN_MODEL unless the same send names one that is", async () => {
  await setKey("sk-ant-test-key-0003");
  const s = await relay.createSession({ title: "opus", provider: "claude", model: "claude-opus-5-5" });
  const before = await state(relay, s);
  let r = await send(s, { provider: "claude-api" });
  assert.equal(r.code, "REMOTE_RELAY_UNKNOWN_MODEL");
  assert.equal(r.remoteCode, "MODEL_NOT_OFFERED");
  assert.deepEqual(r.models, ["claude-sonnet-5-5", "claude-haiku-5"]);
  assert.deepEqual(await state(relay, s), before);

  r = await send(s, { provider: "claude-api", model: "claude-opus-9" });
  assert.equal(r.code, "REMOTE_RELAY_UNKNOWN_MODEL", "a refused message switches nothing");
  assert.deepEqual(await state(relay, s), before);

  r = await send(s, { provider: "claude-api", model: "claude-haiku-5" });
  assert.equal(r.status, "done", JSON.stringify(r));
  assert.match(r.reply.text, /^claude-haiku-5\n/);
  assert.deepEqual(
    { ...(await state(relay, s)), messages: 0 },
    { provider: "claude-api", model: "claude-haiku-5", messages: 0 },
  );
});

test("the key at its monthly cap: a plain send is refused and not queued; provider claude switches and sends; switching to the key is refused", async () => {
  await relay.api("PATCH", "/api/settings", { claudeApiKey: "sk-ant-test-key-0004", claudeApiMonthlyCapUsd: null });
  const s = await relay.createSession({ title: "capped", provider: "claude-api" });
  assert.equal((await send(s, {})).status, "done");
  const settings = await relay.api("PATCH", "/api/settings", { claudeApiMonthlyCapUsd: 20, claudeApiSpentUsd: 20 });
  assert.equal(settings.json.claudeApiSpentUsd, 20);

  const before = await state(relay, s);
  let r = await send(s, {});
  assert.equal(r.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE");
  assert.equal(r.remoteCode, "CLAUDE_API_CAP_REACHED");
  assert.equal(
    r.error,
    'Session "capped" bills the Claude API key, and the Claude API key reached its monthly cap ($20.00 spent of $20.00). Send with provider: "claude" to switch it to the subscription, or ask the user to raise the cap. Nothing was sent.',
  );
  assert.deepEqual(await state(relay, s), before);
  assert.equal((await relay.session(s)).state, "idle", "nothing was queued");

  r = await send(s, { provider: "claude" });
  assert.equal(r.status, "done", JSON.stringify(r));
  assert.equal((await state(relay, s)).provider, "claude");
  r = await send(s, { provider: "claude-api" });
  assert.equal(r.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE");
  assert.equal(r.remoteCode, "CLAUDE_API_CAP_REACHED");
  assert.equal((await state(relay, s)).provider, "claude");

  const c = await mcp.call({ action: "create_session", relay: "this", provider: "claude-api", text: "x" });
  assert.equal(c.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE");
  assert.equal(c.remoteCode, "CLAUDE_API_CAP_REACHED");

  // A new month starts from nothing spent.
  const next = new Date();
  await relay.setClock(new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1, 0, 0, 1)).toISOString());
  assert.equal((await relay.api("GET", "/api/settings")).json.claudeApiSpentUsd, 0);
  r = await send(s, { provider: "claude-api" });
  assert.equal(r.status, "done", JSON.stringify(r));
  await relay.api("PATCH", "/api/settings", { claudeApiMonthlyCapUsd: null });
});

test("where a card applies it says which way; Deny switches and sends nothing", async () => {
  await setKey("sk-ant-test-key-0005");
  const asker = await relay.createSession({ title: "careful" });
  await relay.api("PATCH", `/api/sessions/${asker}`, { mode: "ask" });
  const s = await relay.createSession({ title: "carded", provider: "claude", model: "claude-sonnet-5-5" });
  const before = await state(relay, s);
  const call = { action: "send", relay: "this", session: s, text: "hello", provider: "claude-api", mode: "agent" };
  const denied = await sayDeciding(relay, asker, toolLines(call), "deny");
  assert.equal(denied.results[0].code, "REMOTE_RELAY_PERMISSION");
  assert.match(denied.cards[0].text, /Switches billing to API key/);
  assert.deepEqual(await state(relay, s), before);

  const allowed = await sayDeciding(relay, asker, toolLines(call), "allow");
  assert.equal(allowed.results[0].status, "done", JSON.stringify(allowed.results[0]));
  assert.equal((await state(relay, s)).provider, "claude-api");
  const back = await sayDeciding(relay, asker, toolLines({ ...call, provider: "claude" }), "allow");
  assert.match(back.cards[0].text, /Switches billing to subscription/);
  assert.equal((await state(relay, s)).provider, "claude");
});

test("refusals that send and switch nothing: a busy session, a non-Claude session", async () => {
  await setKey("sk-ant-test-key-0006");
  const s = await relay.createSession({ title: "busy", provider: "claude", model: "claude-sonnet-5-5" });
  await relay.api("POST", `/api/sessions/${s}/messages`, { text: "/hang" });
  await relay.waitFor(async () => (await relay.session(s)).state === "running_turn");
  const before = await state(relay, s);
  const r = await send(s, { provider: "claude-api", wait_seconds: 0 });
  assert.equal(r.code, "REMOTE_RELAY_BUSY");
  assert.deepEqual(await state(relay, s), before);
  await relay.api("POST", `/api/sessions/${s}/stop`);

  const plain = await relay.createSession({ title: "scripted" });
  const p = await send(plain, { provider: "claude" });
  assert.equal(p.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE");
  assert.equal(p.remoteCode, "CLAUDE_PROVIDER_REQUIRED");
  assert.equal((await state(relay, plain)).messages, 0);
});

test("back to the subscription where Claude is not set up: refused with remoteCode", async () => {
  const b = await noClaude.createSession({ title: "keyed" });
  const s = await noClaude.createSession({ title: "api only", provider: "claude-api" });
  const r = await send(s, { provider: "claude" }, await noClaude.mcp(b));
  assert.equal(r.code, "REMOTE_RELAY_PROVIDER_UNAVAILABLE");
  assert.equal(r.remoteCode, "CLAUDE_NOT_SET_UP");
  assert.match(
    r.error,
    /cannot switch session "api only" to the Claude subscription: claude-agent-acp is not installed/,
  );
  assert.equal((await state(noClaude, s)).provider, "claude-api");
});

test("a relay older than 0.9.18 cannot switch: UNSUPPORTED, nothing sent", async () => {
  const b = await old.createSession({ title: "old boss" });
  const s = await old.createSession({ title: "old claude", provider: "claude" });
  const r = await send(s, { provider: "claude-api" }, await old.mcp(b));
  assert.equal(r.code, "REMOTE_RELAY_UNSUPPORTED");
  assert.equal(
    r.error,
    'Relay "oldbox" runs OAR 0.9.17, which cannot switch a session\'s billing (needs 0.9.18). Nothing was sent.',
  );
  assert.deepEqual(await state(old, s), { provider: "claude", model: "claude-opus-5-5", messages: 0 });
});
