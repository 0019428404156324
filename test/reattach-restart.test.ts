// Workers outlive relay restarts (issue 13): the keeper holds the agent processes, so a
// relay that is SIGKILLed (or stopped with SIGTERM) and started again takes them back. A
// turn that was running finishes and is delivered once with its whole reply; an idle worker
// is reused; a question asked while the relay was down is there after the start; Kill
// session still ends a task's process group (its pgid is in the store).
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { TestRelay, realSleep } from "./helpers/relay-process.ts";
import { workerPids } from "./helpers/core-helpers.ts";
import { toolInTurn, eventMessages, waitEvents } from "./helpers/watch.ts";

const SLOW = 90_000;
let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay.stop());

const post = async (sessionId: string, text: string): Promise<string> => {
  const r = await relay.api("POST", `/api/sessions/${sessionId}/messages`, { text });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return r.json.message_id;
};

/** The agent reply after the prompt `messageId`, once the session is idle again. */
const replyTo = (sessionId: string, messageId: string) =>
  relay.waitFor(async () => {
    const s = await relay.session(sessionId);
    const i = s.messages.findIndex((m: any) => m.id === messageId);
    if (i < 0 || s.state !== "idle") return undefined;
    return s.messages.slice(i + 1).find((m: any) => m.role === "agent");
  }, SLOW);

const streamed = (sessionId: string, text: string) =>
  relay.waitFor(async () => {
    const s = await relay.session(sessionId);
    return s.inFlight?.text.includes(text) ? s.inFlight.text : undefined;
  }, SLOW);

const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

/** Living (non-zombie) members of a process group, from /proc. */
const groupMembers = (pgid: number) =>
  readdirSync("/proc").filter((n) => {
    if (!/^\d+$/.test(n)) return false;
    try {
      const stat = readFileSync(`/proc/${n}/stat`, "utf8");
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return Number(pgrp) === pgid && state !== "Z";
    } catch {
      return false;
    }
  }).length;

const CHUNKS = (n: number) => Array.from({ length: n }, (_, i) => `chunk ${i + 1}`).join("\n");

test("SIGKILL mid-turn, start on the same port: the turn ends done with its whole reply, seen once, on the same agent", async () => {
  const s = await relay.createSession({ title: "Streamer" });
  const watcher = await relay.createSession({ title: "Desk" });
  await toolInTurn(relay, watcher, { action: "subscribe", sessions: [s], events: ["turn_end"] });
  const msg = await post(s, "/pid\n/stream 8 400");
  const before = await streamed(s, "chunk 2");
  const pid = Number(/pid (\d+)/.exec(before)![1]);
  assert.ok(workerPids(relay).includes(pid));

  await relay.restart({ samePort: true });
  const reply = await replyTo(s, msg);
  assert.equal(reply.text, `pid ${pid}\n${CHUNKS(8)}`, "chunks from before and after the kill");
  assert.ok(!reply.error, `done, not an error: ${reply.error}`);
  assert.ok(alive(pid) && workerPids(relay).includes(pid), "the same agent process");

  // wait and read_session see it.
  const reader = await relay.createSession({ title: "Reader" });
  const mcp = await relay.mcp(reader);
  const w = await mcp.call({ action: "wait", relay: "this", session: s, message_id: msg, wait_seconds: 0 });
  assert.equal(w.status, "done");
  assert.equal(w.reply.text, `pid ${pid}\n${CHUNKS(8)}`);
  const rs = await mcp.call({ action: "read_session", relay: "this", session: s });
  assert.equal(rs.ok, true);
  assert.ok(JSON.stringify(rs).includes("chunk 8"), JSON.stringify(rs).slice(0, 500));

  // One turn_end for the watcher (its gathering window closes 30 s later on the relay clock).
  await relay.advance(31_000);
  const events = await waitEvents(relay, watcher, 1);
  await relay.advance(120_000);
  await realSleep(500);
  const all = (await eventMessages(relay, watcher)).filter((e) => e.includes("Streamer"));
  assert.equal(all.length, 1, JSON.stringify(events));
  assert.match(all[0], /turn_end \(done\)/);
});

test("an idle worker survives a restart and runs the next turn", async () => {
  const s = await relay.createSession({ title: "Idle" });
  const first = (await relay.say(s, "/pid", SLOW)).text;
  assert.match(first, /^pid \d+$/);
  await relay.restart({ samePort: true });
  assert.equal((await relay.say(s, "/pid", SLOW)).text, first);
  // Its relay_tool works after the restart too (the new relay takes up the agent's old MCP
  // session id: test/mcp-resume.test.ts).
  const tool = (await relay.say(s, `/tool {"action":"relay_info","relay":"this"}`, SLOW)).text;
  assert.match(tool, /^tool: \{"ok":true/);
});

test("a question asked while the relay is down is there after the start; answering it finishes the turn", async () => {
  const s = await relay.createSession({ title: "Asker" });
  const msg = await post(s, "/reply before\n/sleep 2500\n/ask_user Pick one|red|blue");
  await streamed(s, "before");
  await relay.kill();
  await realSleep(3500); // the agent asks now, with no relay attached
  await relay.boot(Number(new URL(relay.url).port));
  const q = await relay.waitFor(async () => (await relay.session(s)).pendingQuestions?.[0], SLOW);
  assert.equal(q.question, "Pick one");
  const r = await relay.api("POST", `/api/questions/${q.id}`, { choice: "blue" });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  const reply = await replyTo(s, msg);
  assert.equal(reply.text, "before\nanswer: blue");
  assert.ok(!reply.error);
});

test("Kill session after a restart ends the task's process group", async () => {
  const s = await relay.createSession({ title: "Tasker" });
  const started = (await relay.say(s, "/task sleeper sleep 300", SLOW)).text;
  const taskId = /task: (\S+) started/.exec(started)![1];
  const db = new Database(join(relay.dataDir, "oar.db"), { readonly: true });
  const pgid = (db.prepare("SELECT pgid FROM tasks WHERE id = ?").get(taskId) as { pgid: number }).pgid;
  db.close();
  assert.ok(pgid > 1 && groupMembers(pgid) > 0, `the task's group ${pgid} runs`);

  await relay.restart({ samePort: true });
  const t = (await relay.session(s)).tasks.find((x: any) => x.taskId === taskId);
  assert.equal(t.status, "running", "its worker was taken back: the task still runs");
  assert.equal((await relay.api("POST", `/api/sessions/${s}/kill`)).json.killed, true);
  await relay.waitFor(() => groupMembers(pgid) === 0, SLOW);
  await relay.waitFor(
    async () => (await relay.session(s)).tasks.find((x: any) => x.taskId === taskId).status === "killed",
    SLOW,
  );
});

test("SIGTERM leaves the workers running (a turn too); the next start takes them back", async () => {
  const idle = await relay.createSession({ title: "Kept" });
  const pidText = (await relay.say(idle, "/pid", SLOW)).text;
  const pid = Number(/pid (\d+)/.exec(pidText)![1]);
  const busy = await relay.createSession({ title: "Busy" });
  const msg = await post(busy, "/stream 6 400");
  await streamed(busy, "chunk 1");

  const exited = new Promise((r) => relay.proc.once("exit", r));
  relay.proc.kill("SIGTERM");
  await exited;
  await realSleep(300);
  assert.ok(alive(pid), "the idle agent runs on without a relay");

  await relay.boot(Number(new URL(relay.url).port));
  assert.equal((await relay.say(idle, "/pid", SLOW)).text, pidText);
  const reply = await replyTo(busy, msg);
  assert.equal(reply.text, CHUNKS(6));
  assert.ok(!reply.error);
});

test("back on another port: a running turn still finishes, then its worker (which knows the old relay_tool address) is replaced", async () => {
  const s = await relay.createSession({ title: "Mover" });
  const msg = await post(s, "/pid\n/stream 5 400");
  const before = await streamed(s, "chunk 1");
  const pid = Number(/pid (\d+)/.exec(before)![1]);
  await relay.restart(); // a new port
  const reply = await replyTo(s, msg);
  assert.equal(reply.text, `pid ${pid}\n${CHUNKS(5)}`);
  await relay.waitFor(() => !alive(pid), SLOW);
  const next = (await relay.say(s, "/pid", SLOW)).text;
  assert.notEqual(next, `pid ${pid}`, "a fresh agent");
  assert.match((await relay.say(s, `/tool {"action":"relay_info","relay":"this"}`, SLOW)).text, /^tool: \{"ok":true/);
});

test("a worker whose session was deleted while the relay was down is ended at start", async () => {
  const s = await relay.createSession({ title: "Doomed" });
  const pid = Number(/pid (\d+)/.exec((await relay.say(s, "/pid", SLOW)).text)![1]);
  await relay.kill();
  const db = new Database(join(relay.dataDir, "oar.db"));
  db.prepare("UPDATE sessions SET deleted_at = ? WHERE id = ?").run(Date.now(), s);
  db.close();
  assert.ok(alive(pid));
  await relay.boot(Number(new URL(relay.url).port));
  await relay.waitFor(() => !alive(pid), SLOW);
});

test("a turn whose prompt never reached an agent (it waited for room under maxWorkers) runs again after a SIGKILL instead of failing", async () => {
  await relay.api("PATCH", "/api/settings", { maxWorkers: 1 });
  try {
    const busy = await relay.createSession({ title: "Holds the only worker" });
    const waiting = await relay.createSession({ title: "Waits for room" });
    await post(busy, "/stream 200 200");
    await streamed(busy, "chunk 1");
    const msg = await post(waiting, "/reply ran after the restart");
    // Running in the store, but its worker is not started: the one slot is taken.
    await relay.waitFor(async () => ((await relay.session(waiting)).state === "running_turn" ? true : undefined), SLOW);
    await relay.restart({ samePort: true });
    // The busy turn was taken back; stop it so the waiting one gets the worker slot.
    assert.equal((await relay.session(busy)).state, "running_turn");
    await relay.api("POST", `/api/sessions/${busy}/stop`);
    const reply = await replyTo(waiting, msg);
    assert.equal(reply.text, "ran after the restart");
    const all = (await relay.session(waiting)).messages;
    assert.equal(all.filter((m: any) => m.role === "agent").length, 1, "one reply, no error before it");
    assert.ok(!all.some((m: any) => /relay stopped/.test(m.text)), JSON.stringify(all));
  } finally {
    await relay.api("PATCH", "/api/settings", { maxWorkers: 8 });
  }
});
