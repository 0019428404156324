// The finding and steering actions on this relay (seed §8.1, §8.3, contract §8):
// relay_info, usage, list_sessions, read_session, stop, archive, wait's lookups, and an
// emulated older relay refusing what its version lacked.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { workerPids } from "./helpers/core-helpers.ts";

let relay: TestRelay;
let me: string;
let mcp: Awaited<ReturnType<TestRelay["mcp"]>>;
before(async () => {
  relay = await TestRelay.start({ name: "desk" });
  me = await relay.createSession({ title: "Me", mode: "plan" });
  mcp = await relay.mcp(me);
});
after(() => relay.stop());

test("relay_info: name, version, platform, mode, folders, and every provider with models and efforts", async () => {
  const folder = await relay.createSession({ title: "Folder", cwd: relay.dataDir });
  const r = await mcp.call({ action: "relay_info", relay: "this" });
  assert.equal(r.ok, true);
  assert.equal(r.name, "desk");
  assert.equal(r.version, "0.9.19");
  assert.equal(typeof r.platform, "string");
  assert.equal(r.acceptsAgentPrompts, true);
  assert.equal(r.mode, "plan", "the calling session's relay mode");
  assert.equal(typeof r.defaultCwd, "string");
  assert.ok(r.recentCwds.includes(relay.dataDir), JSON.stringify(r.recentCwds));
  assert.ok(Array.isArray(r.groups));
  const ids = r.providers.map((p: any) => p.id);
  for (const id of ["claude", "claude-api", "claude-cloud", "copilot", "grok", "deepseek", "openai-image", "scripted"])
    assert.ok(ids.includes(id), id);
  const scripted = r.providers.find((p: any) => p.id === "scripted");
  const { capabilities, ...rest } = scripted;
  assert.deepEqual(rest, {
    id: "scripted",
    name: "Scripted",
    available: true,
    defaultModel: "scripted-1",
    models: ["scripted-1", "scripted-2"],
    efforts: ["low", "medium", "high"],
  });
  // contract §10.2: every provider says what its agent's initialize advertised (false when unknown).
  for (const p of r.providers)
    assert.deepEqual(Object.keys(p.capabilities).sort(), ["images", "loadSession", "mcpHttp", "resume"], p.id);
  assert.ok(Object.values(capabilities).every((v) => typeof v === "boolean"));
  for (const p of r.providers) {
    // A provider whose models come from its endpoint has no list before it is set up (modelNote says so).
    if (!p.modelNote) assert.ok(p.models.includes(p.defaultModel), p.id);
    assert.ok(p.efforts.every((e: string) => ["low", "medium", "high", "max"].includes(e)));
    if (!p.available) assert.equal(typeof p.reason, "string", p.id);
  }
  assert.ok(folder);
});

test("usage: a status per provider, no account names or secrets", async () => {
  const r = await mcp.call({ action: "usage", relay: "this" });
  assert.equal(r.ok, true);
  assert.ok(r.providers.length >= 8);
  for (const p of r.providers) {
    assert.equal(typeof p.status, "string");
    assert.ok(Array.isArray(p.meters));
  }
  const text = JSON.stringify(r);
  assert.ok(!text.includes(relay.token));
  assert.match(r.summary, /^usage → desk: /);
});

test("list_sessions: every entry's fields, state of each session", async () => {
  const busy = await relay.createSession({ title: "Busy" });
  await relay.api("POST", `/api/sessions/${busy}/messages`, { text: "/hang" });
  await relay.waitFor(async () => (await relay.session(busy)).inFlight);
  const r = await mcp.call({ action: "list_sessions", relay: "this" });
  const e = r.sessions.find((s: any) => s.id === busy);
  for (const f of [
    "id",
    "title",
    "provider",
    "model",
    "state",
    "cwd",
    "lastActivityAt",
    "messageCount",
    "tasks",
    "group",
    "mayCreateSessions",
    "viaAgent",
    "watched",
    "watching",
  ]) {
    assert.ok(f in e, f);
  }
  assert.equal(e.state, "running_turn");
  assert.equal(e.messageCount, 1);
  assert.equal(r.sessions.find((s: any) => s.id === me).state, "idle");
  assert.match(r.summary, /sessions, \d+ working/);
  await relay.api("POST", `/api/sessions/${busy}/stop`);
});

test("read_session: the reply still being written (inFlight) and the questions it waits on", async () => {
  const s = await relay.createSession({ title: "Writer" });
  await relay.api("POST", `/api/sessions/${s}/messages`, { text: "/stream 2 1\n/ask_user Which one? | Left | Right" });
  const q = await relay.waitFor(async () =>
    (await relay.api("GET", "/api/inbox")).json.questions.find((x: any) => x.session === s),
  );
  const r = await mcp.call({ action: "read_session", relay: "this", session: s });
  assert.equal(r.state, "running_turn");
  assert.equal(r.inFlight.text, "chunk 1\nchunk 2");
  assert.match(r.inFlight.startedAt, /^\d{4}-/);
  assert.equal(r.pendingQuestions.length, 1);
  assert.equal(r.pendingQuestions[0].id, q.id);
  assert.equal(r.pendingQuestions[0].kind, "ask_user");
  assert.deepEqual(
    r.messages.map((m: any) => m.role),
    ["user"],
  );
  await relay.api("POST", `/api/questions/${q.id}`, { answer: "Both" });
  await relay.waitFor(async () => (await relay.session(s)).state === "idle");
  const after = await mcp.call({ action: "read_session", relay: "this", session: s });
  assert.equal(after.inFlight, null);
  assert.deepEqual(after.pendingQuestions, []);
  assert.equal(after.messages.at(-1).text, "chunk 1\nchunk 2\nanswer: Both");
});

test("stop: stopRequested true for a running turn, false when nothing runs", async () => {
  // Stop is a write: in plan mode it needs a card, so this runs from an agent-mode session.
  const agent = await relay.createSession({ title: "Stopper" });
  const m = await relay.mcp(agent);
  const t = await relay.createSession({ title: "Runner" });
  const sent = await m.call({ action: "send", relay: "this", session: t, text: "/hang", wait_seconds: 0 });
  const r = await m.call({ action: "stop", relay: "this", session: t });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.stopRequested, true);
  assert.equal(r.session, t);
  const w = await m.call({ action: "wait", relay: "this", session: t, message_id: sent.message_id, wait_seconds: 60 });
  assert.equal(w.status, "stopped");
  const again = await m.call({ action: "stop", relay: "this", session: t });
  assert.equal(again.stopRequested, false);
  assert.match(again.summary, /nothing was running/);
});

test("archive: the session leaves the active list, its worker stops, and it takes no more prompts", async () => {
  const agent = await relay.createSession({ title: "Archiver" });
  const m = await relay.mcp(agent);
  const t = await relay.createSession({ title: "Done with" });
  await m.call({ action: "send", relay: "this", session: t, text: "hi" });
  const before = workerPids(relay).length;
  const r = await m.call({ action: "archive", relay: "this", session: t });
  assert.equal(r.ok, true);
  assert.equal(r.archived, true);
  await relay.waitFor(() => workerPids(relay).length === before - 1);
  const active = await m.call({ action: "list_sessions", relay: "this" });
  assert.equal(
    active.sessions.some((s: any) => s.id === t),
    false,
  );
  assert.equal((await m.call({ action: "send", relay: "this", session: t, text: "x" })).code, "REMOTE_RELAY_ARCHIVED");
  // Reading still works.
  assert.equal((await m.call({ action: "read_session", relay: "this", session: t })).ok, true);
});

test("wait: a message_id from another session or none at all is NOT_FOUND; a session with no turn too", async () => {
  const agent = await relay.createSession({ title: "Waiter" });
  const m = await relay.mcp(agent);
  const x = await relay.createSession({ title: "X" });
  const y = await relay.createSession({ title: "Y" });
  const sent = await m.call({ action: "send", relay: "this", session: x, text: "hi" });
  const wrong = await m.call({ action: "wait", relay: "this", session: y, message_id: sent.message_id });
  assert.equal(wrong.code, "REMOTE_RELAY_NOT_FOUND");
  const missing = await m.call({ action: "wait", relay: "this", session: x, message_id: "msg_nope" });
  assert.equal(missing.code, "REMOTE_RELAY_NOT_FOUND");
  const none = await m.call({ action: "wait", relay: "this", session: y });
  assert.equal(none.code, "REMOTE_RELAY_NOT_FOUND");
  // Without message_id: the latest turn.
  const latest = await m.call({ action: "wait", relay: "this", session: x });
  assert.equal(latest.status, "done");
  assert.equal(latest.message_id, sent.message_id);
  // An effort the provider does not offer is refused before anything is sent.
  const effort = await m.call({ action: "send", relay: "this", session: x, text: "x", effort: "max" });
  assert.equal(effort.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(effort.error, /Nothing was sent\.$/);
});

test("refusals worded from the schemas: a mode, effort or billing the enums lack, a missing required argument", async () => {
  // Words the agent reads (and a fixed text): kept as they were when the enums and
  // defineAction's `required` took over from lists and checks written in each place.
  const refused = async (args: Record<string, unknown>) => {
    const r = await mcp.call({ relay: "this", ...args });
    assert.equal(r.code, "REMOTE_RELAY_INVALID_INPUT", JSON.stringify(r));
    return r.error;
  };
  const send = { action: "send", session: me, text: "hi" };
  assert.equal(
    await refused({ ...send, mode: "fast" }),
    'send: mode must be "agent", "ask" or "plan" (got "fast"). Nothing was sent.',
  );
  assert.equal(
    await refused({ ...send, effort: "huge" }),
    'send: effort must be "low", "medium", "high" or "max" (got "huge"). Nothing was sent.',
  );
  assert.equal(
    await refused({ ...send, provider: "copilot" }),
    'send: provider is not valid (Invalid option: expected one of "claude"|"claude-api"). Nothing was sent.',
  );
  const withdraw =
    "withdraw needs question_id: a pending question this conversation asked (see list_questions). Nothing was withdrawn.";
  assert.equal(await refused({ action: "withdraw" }), withdraw);
  assert.equal(await refused({ action: "withdraw", question_id: "" }), withdraw, "an empty value counts as none");
});

test("--emulate-version: the relay presents the older version and refuses what it lacked", async () => {
  const old = await TestRelay.start({ name: "old", emulateVersion: "0.9.11" });
  try {
    assert.equal((await (await fetch(`${old.url}/api/health`)).json()).version, "0.9.11");
    assert.match(old.output, /^OAR 0\.9\.11 relay "old" listening on /m);
    const s = await old.createSession({ title: "S" });
    const m = await old.mcp(s);
    const info = await m.call({ action: "relay_info", relay: "this" });
    assert.equal(info.version, "0.9.11");
    assert.equal((await m.call({ action: "list_relays" })).relays[0].version, "0.9.11");
    assert.equal((await m.call({ action: "usage", relay: "this" })).ok, true, "usage came in 0.9.10");
    const r = await m.call({ action: "read_task_output", relay: "this", session: s, task_id: "t" });
    assert.equal(r.code, "REMOTE_RELAY_UNSUPPORTED");
    assert.match(r.error, /0\.9\.12/);
  } finally {
    await old.stop();
  }
});
