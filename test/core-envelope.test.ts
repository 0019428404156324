// relay_tool's envelope (seed §8, contract §5.1, §6): ok/relay/summary, unknown actions,
// empty values, `ignored` vs create_session's INVALID_INPUT, naming the relay, the
// agent-sessions switch, list_relays, and malformed arguments that change nothing.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import "./helpers/core-helpers.ts"; // generous waits on a shared machine
import { TestRelay } from "./helpers/relay-process.ts";

let relay: TestRelay;
let a: string;
let b: string;
let mcp: Awaited<ReturnType<TestRelay["mcp"]>>;
before(async () => {
  relay = await TestRelay.start({ name: "desk" });
  a = await relay.createSession({ title: "A" });
  b = await relay.createSession({ title: "B" });
  mcp = await relay.mcp(a);
});
after(() => relay.stop());

const sessionCount = async () => (await relay.api("GET", "/api/sessions?scope=all")).json.sessions.length;

test("a successful call has ok, the relay it acted on and a one-line summary", async () => {
  for (const action of ["relay_info", "usage", "list_sessions"]) {
    const r = await mcp.call({ action, relay: "this" });
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.equal(r.relay, "desk");
    assert.equal(typeof r.summary, "string");
    assert.ok(r.summary.length > 0 && !r.summary.includes("\n"), r.summary);
    assert.equal(r.isError, false);
  }
});

test("an unknown action is REMOTE_RELAY_UNKNOWN_ACTION; a call without one is INVALID_INPUT", async () => {
  const r = await mcp.call({ action: "launch_rockets", relay: "this" });
  assert.equal(r.ok, false);
  assert.equal(r.code, "REMOTE_RELAY_UNKNOWN_ACTION");
  assert.match(r.error, /launch_rockets/);
  assert.match(r.error, /list_sessions/);
  assert.equal(r.isError, true);
  for (const args of [{}, { action: "" }, { action: 5 }, { relay: "this" }]) {
    const x = await mcp.call(args);
    assert.equal(x.code, "REMOTE_RELAY_INVALID_INPUT", JSON.stringify(args));
  }
});

test('the relay is "this" or this relay\'s own name (any case); another name is NOT_FOUND; none is INVALID_INPUT', async () => {
  for (const name of ["this", "desk", "DESK", " This "]) {
    const r = await mcp.call({ action: "relay_info", relay: name });
    assert.equal(r.ok, true, name);
    assert.equal(r.relay, "desk");
  }
  const other = await mcp.call({ action: "read_session", relay: "build-box", session: b });
  assert.equal(other.code, "REMOTE_RELAY_NOT_FOUND");
  assert.match(other.error, /build-box/);
  const missing = await mcp.call({ action: "list_sessions" });
  assert.equal(missing.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(missing.error, /relay/);
  const notText = await mcp.call({ action: "list_sessions", relay: 7 });
  assert.equal(notText.code, "REMOTE_RELAY_INVALID_INPUT");
  // list_relays needs no relay and ignores none.
  const lr = await mcp.call({ action: "list_relays" });
  assert.equal(lr.ok, true);
});

test('empty values (null, "", false, []) count as absent, also for relay', async () => {
  const r = await mcp.call({
    action: "list_sessions",
    relay: "this",
    scope: "",
    colour: null,
    session: false,
    tags: [],
  });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.ignored, undefined);
  const read = await mcp.call({ action: "read_session", relay: "this", session: b, last: null, mode: "" });
  assert.equal(read.ok, true);
  const noRelay = await mcp.call({ action: "list_sessions", relay: "" });
  assert.equal(noRelay.code, "REMOTE_RELAY_INVALID_INPUT");
  const n = (await relay.session(b)).messages.length;
  const sent = await mcp.call({
    action: "send",
    relay: "this",
    session: b,
    text: "hi",
    mode: "",
    model: null,
    effort: false,
    provider: [],
  });
  assert.equal(sent.status, "done", JSON.stringify(sent));
  assert.equal(sent.ignored, undefined);
  assert.equal((await relay.session(b)).messages.length, n + 2);
});

test("ordinary actions run and list arguments they do not take in `ignored`, at most 20", async () => {
  const r = await mcp.call({ action: "list_sessions", relay: "this", session: b, verbose: true });
  assert.equal(r.ok, true);
  assert.deepEqual(r.ignored, ["session", "verbose"]);
  const many: Record<string, unknown> = { action: "relay_info", relay: "this" };
  for (let i = 0; i < 25; i++) many[`extra${i}`] = i;
  const m = await mcp.call(many);
  assert.equal(m.ok, true);
  assert.equal(m.ignored.length, 20);
  assert.deepEqual(m.ignored.slice(0, 2), ["extra0", "extra1"]);
  const w = await mcp.call({ action: "wait", relay: "this", session: b, wait_seconds: 0, text: "no text here" });
  assert.equal(w.ok, true);
  assert.deepEqual(w.ignored, ["text"]);
});

test("create_session refuses an argument it does not take, with the spec's sentence, and creates nothing", async () => {
  const n = await sessionCount();
  const r = await mcp.call({ action: "create_session", relay: "this", session: b, text: "hello" });
  assert.equal(r.ok, false);
  assert.equal(r.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.equal(
    r.error,
    "create_session does not take: session. Its arguments: relay, text, provider, model, cwd, repo, branch, mode, effort, title, group, wait_seconds. Nothing was created.",
  );
  const two = await mcp.call({ action: "create_session", relay: "this", text: "x", colour: "red", session: b });
  assert.match(two.error, /^create_session does not take: colour, session\. /);
  // Empty unknown arguments are absent, so they are not refused.
  const empty = await mcp.call({
    action: "create_session",
    relay: "this",
    text: "x",
    session: "",
    model: "nope-model",
  });
  assert.equal(empty.code, "REMOTE_RELAY_UNKNOWN_MODEL");
  assert.equal(await sessionCount(), n);
  assert.equal((await relay.api("GET", "/api/cards")).json.cards.length, 0);
});

test("list_relays lists this relay first, marked self, with the wait limits", async () => {
  await relay.api("PATCH", "/api/settings", { longestWaitMinutes: 12 });
  const r = await mcp.call({ action: "list_relays", relay: "somewhere", bogus: 1 });
  assert.equal(r.ok, true);
  assert.equal(r.relays[0].name, "desk");
  assert.equal(r.relays[0].self, true);
  assert.equal(r.relays[0].version, "0.9.19");
  assert.equal(r.relays[0].online, true);
  assert.equal(r.relays[0].permission, "full");
  assert.equal(r.relays[0].unlocked, true);
  assert.deepEqual(r.limits, { maxWaitSeconds: 720, maxActiveSessions: 4 });
  assert.match(r.summary, /^list_relays: 1 relay/);
  await relay.api("PATCH", "/api/settings", { longestWaitMinutes: 10 });
});

test("with agent sessions off every action but list_relays is REMOTE_RELAY_DISABLED and nothing happens", async () => {
  await relay.api("PATCH", "/api/settings", { agentSessions: false });
  try {
    const n = await sessionCount();
    const before = (await relay.session(b)).messages.length;
    const calls = [
      { action: "relay_info", relay: "this" },
      { action: "usage", relay: "this" },
      { action: "list_sessions", relay: "this" },
      { action: "read_session", relay: "this", session: b },
      { action: "read_task_output", relay: "this", session: b, task_id: "t" },
      { action: "send", relay: "this", session: b, text: "hi" },
      { action: "create_session", relay: "this", text: "hi" },
      { action: "wait", relay: "this", session: b },
      { action: "stop", relay: "this", session: b },
      { action: "archive", relay: "this", session: b },
    ];
    for (const c of calls) {
      const r = await mcp.call(c);
      assert.equal(r.code, "REMOTE_RELAY_DISABLED", JSON.stringify(c));
      assert.match(r.error, /Agents may start and use sessions on this relay/);
    }
    const lr = await mcp.call({ action: "list_relays" });
    assert.equal(lr.ok, true);
    assert.equal(
      lr.relays.find((x: any) => x.self),
      undefined,
    );
    assert.equal(await sessionCount(), n);
    const sb = await relay.session(b);
    assert.equal(sb.messages.length, before);
    assert.equal(sb.archived, undefined);
  } finally {
    await relay.api("PATCH", "/api/settings", { agentSessions: true });
  }
});

test("wrong types and oversized values are INVALID_INPUT naming the argument; nothing is sent", async () => {
  const before = (await relay.session(b)).messages.length;
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ action: "send", session: b, text: "hi", wait_seconds: "x" }, /wait_seconds/],
    [{ action: "send", session: b, text: "hi", wait_seconds: -1 }, /wait_seconds/],
    [{ action: "send", session: 42, text: "hi" }, /session/],
    [{ action: "send", session: b, text: 42 }, /text/],
    [{ action: "send", session: b, text: "x".repeat(200_001) }, /text/],
    [{ action: "send", session: b, text: "hi", mode: "yolo" }, /mode/],
    [{ action: "send", session: b, text: "hi", effort: "extreme" }, /effort/],
    [{ action: "send", session: b }, /text/],
    [{ action: "send", text: "hi" }, /session/],
    [{ action: "read_session", session: b, last: "ten" }, /last/],
    [{ action: "read_session", session: b, last: 0 }, /last/],
    [{ action: "list_sessions", scope: "everything" }, /scope/],
    [{ action: "read_task_output", session: b, task_id: "t", lines: 2.5 }, /lines/],
    [{ action: "wait", session: { id: b } }, /session/],
  ];
  for (const [args, field] of cases) {
    const r = await mcp.call({ relay: "this", ...args });
    assert.equal(r.code, "REMOTE_RELAY_INVALID_INPUT", JSON.stringify(args).slice(0, 120));
    assert.match(r.error, field);
    assert.match(r.error, /Nothing was (sent|done|waited for|read)\.$/, r.error);
  }
  assert.equal((await relay.session(b)).messages.length, before);
  assert.equal((await fetch(`${relay.url}/api/health`)).status, 200);
});

test("unknown session ids are REMOTE_RELAY_NOT_FOUND for every action that takes one", async () => {
  for (const action of ["read_session", "send", "wait", "stop", "archive", "read_task_output"]) {
    const r = await mcp.call({ action, relay: "this", session: "ses_missing", text: "hi", task_id: "t1" });
    assert.equal(r.code, "REMOTE_RELAY_NOT_FOUND", action);
    assert.match(r.error, /ses_missing/);
    assert.match(r.error, /Nothing was/);
  }
});

test("read_session returns the latest messages, 10 unless `last` says otherwise, and large `last` is capped", async () => {
  const s = await relay.createSession({ title: "chatty" });
  for (let i = 1; i <= 7; i++) await relay.say(s, `line ${i}`);
  const def = await mcp.call({ action: "read_session", relay: "this", session: s });
  assert.equal(def.messages.length, 10);
  assert.equal(def.messages.at(-1).text, "echo: line 7");
  assert.equal(def.messages[0].text, "line 3");
  const two = await mcp.call({ action: "read_session", relay: "this", session: s, last: 2 });
  assert.deepEqual(
    two.messages.map((m: any) => m.text),
    ["line 7", "echo: line 7"],
  );
  const big = await mcp.call({ action: "read_session", relay: "this", session: s, last: 5000 });
  assert.equal(big.ok, true, JSON.stringify(big));
  assert.equal(big.messages.length, 14);
  assert.equal(big.state, "idle");
  assert.equal(big.inFlight, null);
  assert.deepEqual(big.pendingQuestions, []);
});
