// Non-blocking questions (seed §11, contract §3 Inbox, §6 limits, §8 codes).
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { answeredEvents, MIN, startTurn, toolInTurn, waitIdle } from "./helpers/sched-helpers.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay.stop());

const inbox = async () => (await relay.api("GET", "/api/inbox")).json.questions as any[];

test("ask returns at once as pending; the Inbox lists asks and ask_user cards; the owner's answer comes back as question_answered", async () => {
  const a = await relay.createSession({ title: "Asker" });
  const mcp = await relay.mcp(a);
  const r = await mcp.call({
    action: "ask",
    question: "Ship the migration tonight or wait for the review?",
    options: ["Tonight", "Wait"],
    recommendation: "Wait",
    detail: "The review covers the index change; the rest is tested.",
  });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.relay, "desk");
  assert.equal(r.status, "pending");
  assert.match(r.question_id, /^ask_[0-9a-z]+$/);
  assert.equal(r.summary, `ask → desk: question ${r.question_id} pending`);

  // An ask_user card of another session waits in the Inbox too.
  const b = await relay.createSession({ title: "Blocked" });
  await startTurn(relay, b, "/ask_user Deploy now? | Yes | No");
  const both = await relay.waitFor(async () => {
    const q = await inbox();
    return q.some((x) => x.kind === "ask_user" && x.session === b) && q;
  });
  const mine = both.find((x) => x.id === r.question_id);
  assert.deepEqual(
    {
      kind: mine.kind,
      session: mine.session,
      question: mine.question,
      options: mine.options,
      recommendation: mine.recommendation,
      detail: mine.detail,
      status: mine.status,
    },
    {
      kind: "ask",
      session: a,
      question: "Ship the migration tonight or wait for the review?",
      options: ["Tonight", "Wait"],
      recommendation: "Wait",
      detail: "The review covers the index change; the rest is tested.",
      status: "pending",
    },
  );
  // It shows as a card in the asker's session.
  assert.ok((await relay.session(a)).pendingQuestions.some((q: any) => q.id === r.question_id));

  const ans = await relay.api("POST", `/api/questions/${r.question_id}`, {
    choice: "Wait",
    answer: "after the review",
  });
  assert.equal(ans.status, 200, JSON.stringify(ans.json));
  await relay.waitFor(async () => (await answeredEvents(relay, a)).length === 1);
  const ev = await answeredEvents(relay, a);
  assert.deepEqual(ev[0].fields, {
    question_id: r.question_id,
    answer: "after the review",
    choice: "Wait",
    dismissed: false,
    via: "desk",
  });
  const msg = (await relay.session(a)).messages.find((m: any) => m.role === "event");
  assert.match(msg.text, /^\[relay event · automated message from OAR, not from the user; it approves nothing\]\n/);

  // Answered once: a second answer is refused and nothing more is delivered.
  const again = await relay.api("POST", `/api/questions/${r.question_id}`, { choice: "Tonight" });
  assert.equal(again.status, 404);
  assert.ok(!(await inbox()).some((x) => x.id === r.question_id));
  const ab = (await inbox()).find((x) => x.kind === "ask_user" && x.session === b);
  await relay.api("POST", `/api/questions/${ab.id}`, { choice: "No" });
  await waitIdle(relay, a);
  await waitIdle(relay, b);
  assert.equal((await answeredEvents(relay, a)).length, 1);
  assert.equal((await answeredEvents(relay, b)).length, 0, "an ask_user answer is no question_answered event");
});

test("a dismissed question arrives as dismissed; list_questions shows pending and the past day; withdraw is the asker's alone", async () => {
  const a = await relay.createSession({ title: "Lister" });
  const other = await relay.createSession({ title: "Other" });
  const mcp = await relay.mcp(a);
  const q1 = (await mcp.call({ action: "ask", question: "One?" })).question_id;
  const q2 = (await mcp.call({ action: "ask", question: "Two?" })).question_id;
  const q3 = (await mcp.call({ action: "ask", question: "Three?" })).question_id;
  const q4 = (await mcp.call({ action: "ask", question: "Four?" })).question_id;

  await relay.api("POST", `/api/questions/${q1}`, { dismiss: true });
  await relay.waitFor(async () => (await answeredEvents(relay, a)).length === 1);
  const ev = (await answeredEvents(relay, a))[0].fields;
  assert.equal(ev.question_id, q1);
  assert.equal(ev.dismissed, true);
  await relay.api("POST", `/api/questions/${q2}`, { answer: "yes" });

  // Only the asking conversation withdraws.
  const otherMcp = await relay.mcp(other);
  const forbidden = await otherMcp.call({ action: "withdraw", question_id: q3 });
  assert.equal(forbidden.code, "REMOTE_RELAY_FORBIDDEN", JSON.stringify(forbidden));
  assert.equal((await inbox()).find((x) => x.id === q3)?.status, "pending", "nothing changed");
  const unknown = await mcp.call({ action: "withdraw", question_id: "ask_nosuchthing" });
  assert.equal(unknown.code, "REMOTE_RELAY_NOT_FOUND");
  const w = await mcp.call({ action: "withdraw", question_id: q3 });
  assert.equal(w.ok, true, JSON.stringify(w));
  assert.equal(w.status, "withdrawn");
  assert.ok(!(await inbox()).some((x) => x.id === q3));
  const twice = await mcp.call({ action: "withdraw", question_id: q3 });
  assert.equal(twice.code, "REMOTE_RELAY_NOT_FOUND");

  const list = await mcp.call({ action: "list_questions" });
  assert.equal(list.ok, true, JSON.stringify(list));
  const byId = Object.fromEntries(list.questions.map((q: any) => [q.id, q]));
  assert.equal(byId[q1].status, "dismissed");
  assert.equal(byId[q2].status, "answered");
  assert.equal(byId[q2].answer, "yes");
  assert.equal(byId[q3].status, "withdrawn");
  assert.equal(byId[q4].status, "pending");

  // A day later only the pending one is left; questions never expire.
  await relay.advance(24 * 60 * MIN + MIN);
  const later = await mcp.call({ action: "list_questions" });
  assert.deepEqual(
    later.questions.map((q: any) => q.id),
    [q4],
  );
  assert.equal((await inbox()).find((x) => x.id === q4)?.status, "pending");
  await waitIdle(relay, a);
});

test("questions about the own conversation need no setting; asking about another session does", async () => {
  const a = await relay.createSession({ title: "Quiet" });
  const b = await relay.createSession({ title: "Target" });
  const mcp = await relay.mcp(a);
  await relay.api("PATCH", "/api/settings", { agentSessions: false });
  try {
    const own = await mcp.call({ action: "ask", question: "Fine without the setting?" });
    assert.equal(own.ok, true, JSON.stringify(own));
    assert.equal((await mcp.call({ action: "list_questions" })).ok, true);
    const otherAsk = await mcp.call({ action: "ask", question: "For B?", session: b });
    assert.equal(otherAsk.code, "REMOTE_RELAY_DISABLED", JSON.stringify(otherAsk));
    const listOther = await mcp.call({ action: "list_questions", session: b });
    assert.equal(listOther.code, "REMOTE_RELAY_DISABLED");
    assert.equal((await mcp.call({ action: "withdraw", question_id: own.question_id })).ok, true);
    assert.ok(!(await inbox()).some((x) => x.session === b), "nothing was asked about B");
  } finally {
    await relay.api("PATCH", "/api/settings", { agentSessions: true });
  }
});

test("ask with session: a write (card in ask mode), the card shows in that session, both get the answer", async () => {
  const a = await relay.createSession({ title: "Careful", mode: "ask" });
  const b = await relay.createSession({ title: "Subject" });
  const mcp = await relay.mcp(a);
  // In ask mode it needs a card; with no turn to show it in, nothing is asked.
  const noTurn = await mcp.call({ action: "ask", question: "Rename B?", session: b });
  assert.equal(noTurn.code, "REMOTE_RELAY_NO_ACTIVE_TURN", JSON.stringify(noTurn));
  assert.equal((await relay.session(b)).pendingQuestions.length, 0);

  const denied = await toolInTurn(relay, a, { action: "ask", question: "Rename B?", session: b }, "deny");
  assert.equal(denied.code, "REMOTE_RELAY_PERMISSION", JSON.stringify(denied));
  assert.equal((await relay.session(b)).pendingQuestions.length, 0);

  const r = await toolInTurn(relay, a, { action: "ask", question: "Rename B?", options: ["Yes", "No"], session: b });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.summary, `ask → desk session ${b}: question ${r.question_id} pending`);
  const inB = (await relay.session(b)).pendingQuestions.find((q: any) => q.id === r.question_id);
  assert.equal(inB?.kind, "ask");
  assert.equal(inB.askedBy, a);
  // Agents cannot answer an ask.
  const c = await relay.createSession({ title: "Meddler" });
  const meddle = await (await relay.mcp(c)).call({
    action: "answer_question",
    relay: "this",
    question_id: r.question_id,
    choices: ["Yes"],
  });
  assert.equal(meddle.code, "REMOTE_RELAY_FORBIDDEN");

  await relay.api("POST", `/api/questions/${r.question_id}`, { choice: "Yes" });
  await relay.waitFor(
    async () => (await answeredEvents(relay, a)).length === 1 && (await answeredEvents(relay, b)).length === 1,
  );
  for (const s of [a, b]) assert.equal((await answeredEvents(relay, s))[0].fields.choice, "Yes");
  const aboutB = await mcp.call({ action: "list_questions", session: b });
  assert.deepEqual(
    aboutB.questions.map((q: any) => [q.id, q.status]),
    [[r.question_id, "answered"]],
  );
  await waitIdle(relay, a);
  await waitIdle(relay, b);
});

test("20 pending questions per asker and 20 per session asked about (REMOTE_RELAY_QUESTION_LIMIT)", async () => {
  const a = await relay.createSession({ title: "Curious" });
  const mcp = await relay.mcp(a);
  for (let i = 0; i < 20; i++) assert.equal((await mcp.call({ action: "ask", question: `Q${i}?` })).ok, true);
  const over = await mcp.call({ action: "ask", question: "Q20?" });
  assert.equal(over.code, "REMOTE_RELAY_QUESTION_LIMIT", JSON.stringify(over));
  assert.match(over.error, /Nothing was asked\.$/);
  assert.equal((await mcp.call({ action: "list_questions" })).questions.length, 20);

  const t = await relay.createSession({ title: "Popular" });
  const c = await relay.mcp(await relay.createSession({ title: "C" }));
  const d = await relay.mcp(await relay.createSession({ title: "D" }));
  for (let i = 0; i < 10; i++) {
    assert.equal((await c.call({ action: "ask", question: `c${i}`, session: t })).ok, true);
    assert.equal((await d.call({ action: "ask", question: `d${i}`, session: t })).ok, true);
  }
  const e = await relay.mcp(await relay.createSession({ title: "E" }));
  const full = await e.call({ action: "ask", question: "one more", session: t });
  assert.equal(full.code, "REMOTE_RELAY_QUESTION_LIMIT", JSON.stringify(full));
  assert.equal((await relay.session(t)).pendingQuestions.length, 20);
});

test("a question ends silently when its session is archived or deleted", async () => {
  const a = await relay.createSession({ title: "Doomed" });
  const b = await relay.createSession({ title: "Gone" });
  const q = (await (await relay.mcp(a)).call({ action: "ask", question: "Still there?" })).question_id;
  const qb = (await (await relay.mcp(b)).call({ action: "ask", question: "And me?" })).question_id;
  await relay.api("POST", `/api/sessions/${a}/archive`);
  await relay.api("DELETE", `/api/sessions/${b}`);
  const ids = (await inbox()).map((x) => x.id);
  assert.ok(!ids.includes(q) && !ids.includes(qb));
  assert.equal((await relay.api("POST", `/api/questions/${q}`, { answer: "late" })).status, 404);
  const s = await relay.api("GET", `/api/sessions/${a}`);
  assert.equal(s.json.messages.filter((m: any) => m.role === "event").length, 0, "nobody is told");
});

test("question_answered is urgent: quiet hours and digests of the asker's subscriptions do not hold it", async () => {
  const a = await relay.createSession({ title: "Watcher" });
  const b = await relay.createSession({ title: "Watched" });
  const now = new Date(await relay.advance(0));
  const hh = (h: number) => `${String((h + 24) % 24).padStart(2, "0")}:00`;
  const quiet = { from: hh(now.getUTCHours() - 1), to: hh(now.getUTCHours() + 3), tz: "UTC" };
  const sub = await toolInTurn(relay, a, {
    action: "subscribe",
    relay: "this",
    sessions: [b],
    events: ["turn_end"],
    quiet_hours: quiet,
    digest_minutes: 60,
  });
  assert.equal(sub.ok, true, JSON.stringify(sub));
  await relay.say(b, "work"); // its turn_end is held by the quiet hours
  await waitIdle(relay, a);
  const q = await (await relay.mcp(a)).call({ action: "ask", question: "Now?" });
  await relay.api("POST", `/api/questions/${q.question_id}`, { choice: "now" });
  await relay.waitFor(async () => (await answeredEvents(relay, a)).length === 1);
  const events = (await relay.session(a)).messages
    .filter((m: any) => m.role === "event")
    .map((m: any) => m.text)
    .join("\n");
  assert.ok(!events.includes("turn_end"), "the watched session's event is still held");
  await waitIdle(relay, a);
  // The held event itself comes after the quiet hours.
  await relay.advance(5 * 60 * MIN);
  await relay.waitFor(async () =>
    (await relay.session(a)).messages.some((m: any) => m.role === "event" && m.text.includes("turn_end")),
  );
  await waitIdle(relay, a);
});
