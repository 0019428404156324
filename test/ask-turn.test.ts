// question_answered reaches the asker without a subscription (seed §11). REQUIRED: a
// question answered while the asker is in a turn is delivered once, when that turn ends.
// Pending asks survive a SIGKILL restart (ask_user cards do not: no turn waits any more).
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { answeredEvents, messages, startTurn, waitIdle } from "./helpers/sched-helpers.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay.stop());

test("a question answered while the asker is in a turn is delivered once, when the turn ends", async () => {
  const a = await relay.createSession({ title: "Asker" });
  const mcp = await relay.mcp(a);
  const asked = await mcp.call({
    action: "ask",
    question: "Ship tonight?",
    options: ["Tonight", "Wait"],
    recommendation: "Wait",
  });
  assert.equal(asked.ok, true, JSON.stringify(asked));

  await startTurn(relay, a, "/stream 1 10\n/hang"); // writes "chunk 1", then runs until stopped
  await relay.waitFor(async () => (await relay.session(a)).inFlight?.text.includes("chunk 1"));
  const before = (await messages(relay, a, "agent")).length;
  const r = await relay.api("POST", `/api/questions/${asked.question_id}`, { choice: "Wait" });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.equal(r.json.status, "answered");

  // The turn still runs and nothing reached the agent yet: no new reply.
  const mid = await relay.session(a);
  assert.equal(mid.state, "running_turn");
  assert.equal(mid.messages.filter((m: any) => m.role === "agent").length, before);

  await relay.api("POST", `/api/sessions/${a}/stop`);
  const s = await waitIdle(relay, a);
  const replies = s.messages.filter((m: any) => m.role === "agent");
  // The hung turn's reply first, then the agent's turn on the event (the scripted agent echoes it).
  const echo = replies.filter((m: any) => m.text.includes("question_answered"));
  assert.equal(echo.length, 1, "the event reached the agent exactly once");
  const hung = replies.findIndex((m: any) => m.text.includes("chunk 1"));
  assert.ok(hung >= 0 && !replies[hung].text.includes("question_answered"), "not steered into the running turn");
  assert.ok(replies.indexOf(echo[0]) > hung, "delivered after the turn ended");
  assert.ok(
    !s.messages.some((m: any) => m.role === "user" && m.text.includes("question_answered")),
    "never as the user's message",
  );
  const events = await answeredEvents(relay, a);
  assert.equal(events.length, 1);
  assert.deepEqual(events[0].fields, {
    question_id: asked.question_id,
    answer: null,
    choice: "Wait",
    dismissed: false,
    via: "desk",
  });

  // Across a SIGKILL restart it is not delivered again.
  await relay.restart();
  await waitIdle(relay, a);
  assert.equal((await answeredEvents(relay, a)).length, 1);
});

test("a pending ask survives a SIGKILL restart and its answer still arrives", async () => {
  const a = await relay.createSession({ title: "Patient" });
  const mcp = await relay.mcp(a);
  const asked = await mcp.call({ action: "ask", question: "Which region?", options: ["eu", "us"] });
  assert.equal(asked.ok, true, JSON.stringify(asked));
  await relay.restart();
  const inbox = (await relay.api("GET", "/api/inbox")).json.questions;
  const q = inbox.find((x: any) => x.id === asked.question_id);
  assert.equal(q?.status, "pending", "asks are not ended at start-up");
  assert.equal(q.kind, "ask");
  const mcp2 = await relay.mcp(a);
  const listed = await mcp2.call({ action: "list_questions" });
  assert.equal(listed.questions.find((x: any) => x.id === asked.question_id)?.status, "pending");

  await relay.api("POST", `/api/questions/${asked.question_id}`, { answer: "eu, close to the users" });
  await relay.waitFor(async () => (await answeredEvents(relay, a)).length === 1);
  const ev = (await answeredEvents(relay, a))[0];
  assert.equal(ev.fields.answer, "eu, close to the users");
  assert.equal(ev.fields.choice, null);
  await waitIdle(relay, a);
});
