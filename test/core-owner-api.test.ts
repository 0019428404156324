// The owner API for sessions (contract §3, §8): create (with a first turn), list by scope,
// get, patch, messages, stop, archive, delete, kill, the MCP entry, the task console, and
// the SSE stream.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { workerPids } from "./helpers/core-helpers.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start({ name: "desk" });
});
after(() => relay.stop());

const ids = async (scope = "active") =>
  (await relay.api("GET", `/api/sessions?scope=${scope}`)).json.sessions.map((s: any) => s.id);

test("POST /api/sessions returns 201 with the session bare; with text its first turn starts", async () => {
  const r = await relay.api("POST", "/api/sessions", {
    provider: "scripted",
    model: "scripted-2",
    mode: "ask",
    effort: "low",
    title: "Fresh",
    cwd: relay.dataDir,
    text: "/model",
  });
  assert.equal(r.status, 201);
  const s = r.json;
  assert.match(s.id, /^ses_/);
  assert.equal(s.title, "Fresh");
  assert.equal(s.provider, "scripted");
  assert.equal(s.model, "scripted-2");
  assert.equal(s.mode, "ask");
  assert.equal(s.effort, "low");
  assert.equal(s.cwd, relay.dataDir);
  assert.ok(
    Array.isArray(s.messages) && Array.isArray(s.tasks) && Array.isArray(s.pendingQuestions) && Array.isArray(s.cards),
  );
  assert.equal(s.messages[0].role, "user");
  assert.equal(s.messages[0].text, "/model");
  assert.match(s.messages[0].createdAt, /^\d{4}-\d\d-\d\dT/);
  const done = await relay.waitFor(async () => {
    const x = await relay.session(s.id);
    return x.state === "idle" && x.messages.length === 2 && x;
  });
  assert.equal(done.messages[1].role, "agent");
  assert.equal(done.messages[1].text, "scripted-2");
  // Defaults: the provider's default model, agent mode.
  const d = (await relay.api("POST", "/api/sessions", { provider: "scripted" })).json;
  assert.equal(d.model, "scripted-1");
  assert.equal(d.mode, "agent");
  assert.equal(d.mayCreateSessions, false);
});

test("GET /api/sessions lists active sessions, or all with scope=all; each entry as list_sessions shows it", async () => {
  const keep = await relay.createSession({ title: "Keep" });
  const old = await relay.createSession({ title: "Old" });
  const arch = await relay.api("POST", `/api/sessions/${old}/archive`);
  assert.equal(arch.status, 200);
  assert.ok((await ids()).includes(keep));
  assert.equal((await ids()).includes(old), false);
  assert.ok((await ids("all")).includes(old));
  assert.equal((await relay.api("GET", "/api/sessions?scope=some")).json.code, "REMOTE_RELAY_INVALID_INPUT");
  const entry = (await relay.api("GET", "/api/sessions?scope=all")).json.sessions.find((s: any) => s.id === old);
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
    assert.ok(f in entry, `entry lacks ${f}`);
  }
  assert.equal(entry.archived, true);
  assert.equal(entry.viaAgent, null);
  assert.equal(entry.watched, false);
  assert.equal(entry.watching, 0);
  // An archived session takes no message.
  const m = await relay.api("POST", `/api/sessions/${old}/messages`, { text: "hello?" });
  assert.equal(m.json.code, "REMOTE_RELAY_ARCHIVED");
});

test("PATCH changes the owner's settings of a session, mayCreateSessions included", async () => {
  const s = await relay.createSession({ title: "Before" });
  const r = await relay.api("PATCH", `/api/sessions/${s}`, {
    title: "After",
    mode: "plan",
    model: "scripted-2",
    effort: "high",
    cwd: relay.dataDir,
    mayCreateSessions: true,
  });
  assert.equal(r.status, 200);
  for (const [k, v] of Object.entries({
    title: "After",
    mode: "plan",
    model: "scripted-2",
    effort: "high",
    cwd: relay.dataDir,
    mayCreateSessions: true,
  })) {
    assert.equal(r.json[k], v, k);
  }
  const back = await relay.api("PATCH", `/api/sessions/${s}`, { mayCreateSessions: false });
  assert.equal(back.json.mayCreateSessions, false);
  assert.equal(back.json.title, "After");
});

test("messages queue as turns; stop ends the running one; the queue goes on", async () => {
  const s = await relay.createSession({ title: "Queue" });
  const first = await relay.api("POST", `/api/sessions/${s}/messages`, { text: "/hang" });
  assert.equal(first.status, 201);
  assert.match(first.json.message_id, /^msg_/);
  await relay.waitFor(async () => (await relay.session(s)).inFlight !== null);
  await relay.api("POST", `/api/sessions/${s}/messages`, { text: "second" });
  const stop = await relay.api("POST", `/api/sessions/${s}/stop`);
  assert.deepEqual(stop.json, { ok: true, session: s, stopRequested: true });
  const end = await relay.waitFor(async () => {
    const x = await relay.session(s);
    return x.state === "idle" && x.messages.at(-1).text === "echo: second" && x;
  });
  assert.equal(end.inFlight, null);
  assert.equal((await relay.api("POST", `/api/sessions/${s}/stop`)).json.stopRequested, false);
});

test("DELETE removes a session: gone from lists, 404 after, its agent token refused", async () => {
  const s = await relay.createSession({ title: "Doomed" });
  const entry = (await relay.api("GET", `/api/sessions/${s}/mcp`)).json;
  const del = await relay.api("DELETE", `/api/sessions/${s}`);
  assert.equal(del.status, 200);
  assert.equal((await relay.api("GET", `/api/sessions/${s}`)).status, 404);
  assert.equal((await ids("all")).includes(s), false);
  const r = await fetch(entry.url, {
    method: "POST",
    headers: { ...entry.headers, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  });
  assert.equal(r.status, 401);
});

test("GET /api/sessions/:id/mcp is the entry the worker gets; a client using it acts as that session", async () => {
  const s = await relay.createSession({ title: "Entry" });
  const e = (await relay.api("GET", `/api/sessions/${s}/mcp`)).json;
  assert.equal(e.url, `${relay.url}/mcp`);
  assert.match(e.headers.Authorization, /^Bearer \S{20,}$/);
  const mcp = await relay.mcp(s);
  const r = await mcp.call({ action: "send", relay: "this", session: s, text: "me?" });
  assert.equal(r.code, "REMOTE_RELAY_FORBIDDEN", "the entry acts as the session itself");
});

test("the task console: plain lines, ?lines=N from the end, secrets masked", async () => {
  const s = await relay.createSession({ title: "Console" });
  const reply = await relay.say(
    s,
    `/task out printf '\\033[32mgreen\\033[0m\\nline 2\\nline 3\\npassword=hunter2hunter2\\n'`,
  );
  const id = /^task: (\S+) started$/m.exec(reply.text)![1];
  await relay.waitFor(async () =>
    (await relay.session(s)).tasks.find((t: any) => t.taskId === id && t.status === "completed"),
  );
  const all = await relay.api("GET", `/api/sessions/${s}/tasks/${id}/output`);
  assert.deepEqual(all.json.lines, ["green", "line 2", "line 3", "password=****"]);
  assert.equal(all.json.truncated, false);
  assert.equal(all.json.task.taskId, id);
  const two = await relay.api("GET", `/api/sessions/${s}/tasks/${id}/output?lines=2`);
  assert.deepEqual(two.json.lines, ["line 3", "password=****"]);
  assert.equal(two.json.truncated, true);
});

test("GET /api/stream sends Server-Sent Events of what changes", async () => {
  const ac = new AbortController();
  const res = await fetch(`${relay.url}/api/stream`, {
    headers: { authorization: `Bearer ${relay.token}` },
    signal: ac.signal,
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /text\/event-stream/);
  const reader = res.body!.getReader();
  let text = "";
  const until = async (re: RegExp) => {
    while (!re.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    return re.test(text);
  };
  assert.ok(await until(/event: hello/));
  const s = await relay.createSession({ title: "Streamed" });
  assert.ok(await until(new RegExp(`event: change\\ndata: .*"session\\.updated".*"${s}"`)));
  await relay.api("POST", `/api/sessions/${s}/messages`, { text: "hi" });
  assert.ok(await until(/"turn\.ended"/));
  ac.abort();
  const noToken = await fetch(`${relay.url}/api/stream`);
  assert.equal(noToken.status, 401);
});

test("archive and delete end the running turn and drop the queued ones; no worker starts again", async () => {
  const mcp = await relay.mcp(await relay.createSession({ title: "Watcher" }));
  const base = new Set(workerPids(relay));
  for (const how of ["archive", "delete"]) {
    const s = await relay.createSession({ title: `To ${how}` });
    const run = await mcp.call({ action: "send", relay: "this", session: s, text: "/hang", wait_seconds: 0 });
    const queued = await mcp.call({ action: "send", relay: "this", session: s, text: "never", wait_seconds: 0 });
    assert.equal(queued.status, "queued");
    const waiting =
      how === "archive"
        ? mcp.call({ action: "wait", relay: "this", session: s, message_id: queued.message_id, wait_seconds: 600 })
        : null;
    await relay.api(how === "archive" ? "POST" : "DELETE", `/api/sessions/${s}${how === "archive" ? "/archive" : ""}`);
    if (waiting) {
      const w = await waiting;
      assert.equal(w.status, "stopped", "the waiter hears at once, without the clock moving");
      const r = await mcp.call({
        action: "wait",
        relay: "this",
        session: s,
        message_id: run.message_id,
        wait_seconds: 60,
      });
      assert.equal(r.status, "stopped");
      const x = await relay.waitFor(async () => {
        const d = await relay.session(s);
        return d.state === "idle" && d;
      });
      assert.equal(
        x.messages.some((m: any) => m.text === "echo: never" || /^echo: .*never/s.test(m.text)),
        false,
      );
    }
  }
  // Their workers are gone and none started for the dropped turns.
  await relay.waitFor(() => workerPids(relay).every((p) => base.has(p)));
});

test("what is not here is named as not on this relay (sessions, groups, a session to move, providers)", async () => {
  const cases: [string, string, unknown, RegExp][] = [
    ["GET", "/api/sessions/ses_nothere", undefined, /^No session "ses_nothere" on this relay\. Nothing was done\.$/],
    ["GET", "/api/groups/grp_nothere", undefined, /^No group grp_nothere on this relay\. Nothing was read\.$/],
    [
      "POST",
      "/api/providers/nothere/check",
      undefined,
      /^No provider 'nothere' on this relay\. Nothing was checked\.$/,
    ],
  ];
  const g = (await relay.api("POST", "/api/groups", { name: "Movers" })).json;
  cases.push([
    "POST",
    `/api/groups/${g.id}/sessions`,
    { session: "ses_nothere" },
    /^No session "ses_nothere" on this relay\. Nothing was moved\.$/,
  ]);
  for (const [method, path, body, error] of cases) {
    const r = await relay.api(method, path, body);
    assert.equal(r.status, 404, path);
    assert.equal(r.json.code, "REMOTE_RELAY_NOT_FOUND", path);
    assert.match(r.json.error, error, path);
  }
});
