// Statuses of send / create_session / wait (contract §4.4, §8), waits on the relay clock
// (Longest wait per tool call, wait_seconds), and Max turn duration.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import "./helpers/core-helpers.ts"; // generous waits on a shared machine
import { TestRelay, realSleep } from "./helpers/relay-process.ts";

let relay: TestRelay;
let a: string;
let mcp: Awaited<ReturnType<TestRelay["mcp"]>>;
before(async () => {
  relay = await TestRelay.start({ name: "desk" });
  a = await relay.createSession({ title: "Caller" });
  mcp = await relay.mcp(a);
});
after(() => relay.stop());

const HEADER = '[Prompt from an agent on this relay · session "Caller" · scripted-1 · acting for the user]';

/** A call that must still be waiting: it only ends when the manual clock moves. */
function pending<T>(p: Promise<T>): { settled: () => boolean; p: Promise<T> } {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  return { settled: () => done, p };
}

const state = async (id: string) => (await relay.session(id)).state;

function assertCarries(r: any, session: string) {
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.session, session);
  assert.match(r.message_id, /^msg_/);
  assert.equal(r.openUrl, `${relay.url}/#session=${session}`);
}

test("done: the reply's text and model", async () => {
  const t = await relay.createSession({ title: "echoer", model: "scripted-2" });
  const r = await mcp.call({ action: "send", relay: "this", session: t, text: "hello" });
  assertCarries(r, t);
  assert.equal(r.status, "done");
  assert.deepEqual(r.reply, { text: `echo: ${HEADER}\nhello`, model: "scripted-2" });
  assert.match(r.summary, /^send → desk session .+: done$/);
});

test("running: wait_seconds runs on the relay clock; the text so far and a note to call wait; wait continues", async () => {
  const t = await relay.createSession({ title: "streamer" });
  const call = pending(
    mcp.call({ action: "send", relay: "this", session: t, text: "/stream 3 5\n/hang", wait_seconds: 30 }),
  );
  await relay.waitFor(async () => (await relay.session(t)).inFlight?.text === "chunk 1\nchunk 2\nchunk 3");
  await realSleep(300);
  assert.equal(call.settled(), false, "the wait must not end before the clock passes 30 s");
  await relay.advance(29_000);
  await realSleep(200);
  assert.equal(call.settled(), false);
  await relay.advance(1_000);
  const r = await call.p;
  assertCarries(r, t);
  assert.equal(r.status, "running");
  assert.equal(r.reply.text, "chunk 1\nchunk 2\nchunk 3");
  assert.match(r.note, /wait/);
  // wait with the message_id picks the same turn up again.
  const again = await mcp.call({
    action: "wait",
    relay: "this",
    session: t,
    message_id: r.message_id,
    wait_seconds: 0,
  });
  assert.equal(again.status, "running");
  assert.equal(again.message_id, r.message_id);
  // stopped: the turn was stopped; the text so far comes along.
  const waiting = mcp.call({ action: "wait", relay: "this", session: t, message_id: r.message_id, wait_seconds: 60 });
  await relay.api("POST", `/api/sessions/${t}/stop`);
  const stopped = await waiting;
  assertCarries(stopped, t);
  assert.equal(stopped.status, "stopped");
  assert.equal(stopped.reply.text, "chunk 1\nchunk 2\nchunk 3");
});

test("queued: another turn is ahead; queuePosition 1 is next; the queue then runs in order", async () => {
  const t = await relay.createSession({ title: "busy" });
  await relay.api("POST", `/api/sessions/${t}/messages`, { text: "/hang" });
  await relay.waitFor(async () => (await state(t)) === "running_turn");
  const q1 = await mcp.call({ action: "send", relay: "this", session: t, text: "first", wait_seconds: 0 });
  assertCarries(q1, t);
  assert.equal(q1.status, "queued");
  assert.equal(q1.queuePosition, 1);
  const q2 = await mcp.call({ action: "send", relay: "this", session: t, text: "second", wait_seconds: 0 });
  assert.equal(q2.queuePosition, 2);
  assert.match(q2.summary, /queued \(position 2\)/);
  await relay.api("POST", `/api/sessions/${t}/stop`);
  const w2 = await mcp.call({ action: "wait", relay: "this", session: t, message_id: q2.message_id, wait_seconds: 60 });
  assert.equal(w2.status, "done");
  assert.equal(w2.reply.text, `echo: ${HEADER}\nsecond`);
  const w1 = await mcp.call({ action: "wait", relay: "this", session: t, message_id: q1.message_id, wait_seconds: 0 });
  assert.equal(w1.status, "done");
});

test("waiting_question: the target's turn waits on an ask_user card; after the answer the reply is done", async () => {
  const t = await relay.createSession({ title: "asker" });
  const r = await mcp.call({
    action: "send",
    relay: "this",
    session: t,
    text: "/ask_user Deploy now? | Yes | No",
    wait_seconds: 300,
  });
  assertCarries(r, t);
  assert.equal(r.status, "waiting_question");
  assert.equal(r.pendingQuestions.length, 1);
  const q = r.pendingQuestions[0];
  assert.equal(q.kind, "ask_user");
  assert.equal(q.question, "Deploy now?");
  assert.deepEqual(q.options, ["Yes", "No"]);
  const inbox = (await relay.api("GET", "/api/inbox")).json.questions;
  assert.ok(inbox.some((x: any) => x.id === q.id));
  assert.equal((await relay.api("POST", `/api/questions/${q.id}`, { choice: "Yes" })).status, 200);
  const done = await mcp.call({
    action: "wait",
    relay: "this",
    session: t,
    message_id: r.message_id,
    wait_seconds: 60,
  });
  assert.equal(done.status, "done");
  assert.equal(done.reply.text, `answer: Yes\necho: ${HEADER}`);
});

test("error: a failed turn is ok:true with status error and the turn's error text", async () => {
  const t = await relay.createSession({ title: "failer" });
  const r = await mcp.call({ action: "send", relay: "this", session: t, text: "/error boom" });
  assertCarries(r, t);
  assert.equal(r.isError, false);
  assert.equal(r.status, "error");
  assert.match(r.error, /boom/);
  assert.match(r.summary, /: error: .*boom/);
});

test("wait_seconds 0 on an idle session answers running at once (the turn started)", async () => {
  const t = await relay.createSession({ title: "idle" });
  const r = await mcp.call({ action: "send", relay: "this", session: t, text: "/hang", wait_seconds: 0 });
  assertCarries(r, t);
  assert.equal(r.status, "running");
  assert.equal(r.reply.text, "");
  // wait without message_id follows the session's current turn.
  const w = await mcp.call({ action: "wait", relay: "this", session: t, wait_seconds: 0 });
  assert.equal(w.status, "running");
  assert.equal(w.message_id, r.message_id);
  await relay.api("POST", `/api/sessions/${t}/stop`);
});

test("wait_seconds over Longest wait per tool call is clamped with a note; left out, the longest wait applies", async () => {
  await relay.api("PATCH", "/api/settings", { longestWaitMinutes: 2 });
  try {
    const t = await relay.createSession({ title: "long" });
    const call = pending(mcp.call({ action: "send", relay: "this", session: t, text: "/hang", wait_seconds: 3600 }));
    await relay.waitFor(async () => (await state(t)) === "running_turn");
    await relay.advance(119_000);
    await realSleep(300);
    assert.equal(call.settled(), false);
    await relay.advance(1_000);
    const r = await call.p;
    assert.equal(r.status, "running");
    assert.match(r.note, /wait_seconds 3600 is more than this relay's Longest wait per tool call \(120 s\)/);
    const dflt = pending(mcp.call({ action: "wait", relay: "this", session: t, message_id: r.message_id }));
    await realSleep(300);
    assert.equal(dflt.settled(), false);
    await relay.advance(120_000);
    const w = await dflt.p;
    assert.equal(w.status, "running");
    assert.equal(w.note.includes("Longest wait"), false);
    await relay.api("POST", `/api/sessions/${t}/stop`);
  } finally {
    await relay.api("PATCH", "/api/settings", { longestWaitMinutes: 10 });
  }
});

test("Max turn duration ends a hanging turn as an error once the clock passes it", async () => {
  await relay.api("PATCH", "/api/settings", { maxTurnMinutes: 5 });
  try {
    const t = await relay.createSession({ title: "hanger" });
    const sent = await mcp.call({ action: "send", relay: "this", session: t, text: "/hang", wait_seconds: 0 });
    await relay.advance(4 * 60_000);
    await realSleep(300);
    assert.equal(await state(t), "running_turn");
    const waiting = mcp.call({
      action: "wait",
      relay: "this",
      session: t,
      message_id: sent.message_id,
      wait_seconds: 600,
    });
    await relay.advance(60_000);
    const r = await waiting;
    assert.equal(r.status, "error");
    assert.match(r.error, /Max turn duration \(5 min\)/);
    assert.equal(await state(t), "idle");
    // The session takes the next prompt normally.
    const next = await mcp.call({ action: "send", relay: "this", session: t, text: "again" });
    assert.equal(next.status, "done");
  } finally {
    await relay.api("PATCH", "/api/settings", { maxTurnMinutes: 60 });
  }
});
