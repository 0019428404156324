// Compaction (contract §3): POST /api/sessions/:id/compact starts a new conversation from
// a summary; the old one's subscriptions (as watcher), schedules, questions, started
// sessions and group place move to it; the old one is archived.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { agentCreate, agentTool } from "./helpers/core-helpers.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay.stop());

test("compaction moves subscriptions, schedules, questions and started sessions to the new conversation", async () => {
  const old = await relay.createSession({ title: "Orchestrator" });
  await relay.say(old, "remember the plan");
  const child = (await agentCreate(relay, old, { text: "work", wait_seconds: 0 })).session;
  const watched = await relay.createSession({ title: "Watched" });
  const sub = await agentTool(relay, old, { action: "subscribe", sessions: [watched], events: ["turn_end"] });
  assert.equal(sub.ok, true, JSON.stringify(sub));
  const sched = await agentTool(relay, old, {
    action: "schedule",
    title: "Later",
    text: "check in",
    every_minutes: 60,
  });
  assert.equal(sched.ok, true, JSON.stringify(sched));
  const ask = await agentTool(relay, old, { action: "ask", question: "Ship it?", options: ["Yes", "No"] });
  assert.equal(ask.ok, true, JSON.stringify(ask));

  const r = await relay.api("POST", `/api/sessions/${old}/compact`);
  assert.equal(r.status, 201, JSON.stringify(r.json));
  const next = r.json.id;
  assert.notEqual(next, old);
  assert.equal(r.json.title, "Orchestrator");
  const first = r.json.messages[0];
  assert.match(first.text, /^\[Conversation compacted by OAR: this conversation continues "Orchestrator"/);
  assert.match(first.text, /remember the plan/);

  const oldNow = await relay.session(old);
  assert.equal(oldNow.archived, true);

  const mcp = await relay.mcp(next);
  const subs = (await mcp.call({ action: "list_subscriptions" })).subscriptions.filter((s: any) => s.active !== false);
  assert.equal(subs.length, 1);
  assert.deepEqual(
    subs[0].sessions.map((s: any) => s.id ?? s),
    [watched],
  );
  const schedules = (await mcp.call({ action: "list_schedules" })).schedules.filter((s: any) => !s.endReason);
  assert.equal(schedules.length, 1);
  assert.equal(schedules[0].id, sched.schedule_id);
  const questions = (await mcp.call({ action: "list_questions" })).questions;
  assert.ok(
    questions.some((q: any) => q.id === ask.question_id && q.status === "pending"),
    JSON.stringify(questions),
  );
  const list = (await mcp.call({ action: "list_sessions", relay: "this" })).sessions;
  assert.deepEqual(list.find((s: any) => s.id === child).viaAgent, { session: next, title: "Orchestrator" });
  assert.equal(list.find((s: any) => s.id === next).group.role, "head");

  // The owner answers in the Inbox: the new conversation is told.
  await relay.api("POST", `/api/questions/${ask.question_id}`, { choice: "Yes" });
  await relay.waitFor(async () =>
    (await relay.session(next)).messages.some((m: any) => m.role === "event" && m.text.includes(ask.question_id)),
  );
});

test("compaction is refused for an archived session, a busy one and an unknown id", async () => {
  const s = await relay.createSession({ title: "Busy" });
  await relay.api("POST", `/api/sessions/${s}/messages`, { text: "/hang" });
  await relay.waitFor(async () => (await relay.session(s)).state === "running_turn");
  const busy = await relay.api("POST", `/api/sessions/${s}/compact`);
  assert.equal(busy.json.code, "REMOTE_RELAY_BUSY");
  await relay.api("POST", `/api/sessions/${s}/archive`);
  const archived = await relay.api("POST", `/api/sessions/${s}/compact`);
  assert.equal(archived.json.code, "REMOTE_RELAY_ARCHIVED");
  const unknown = await relay.api("POST", `/api/sessions/ses_nope/compact`);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.code, "REMOTE_RELAY_NOT_FOUND");
});
