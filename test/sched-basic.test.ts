// Schedules (seed §10): setting, firing on the relay clock, listing, ending, limits.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { iso, messages, MIN, pendingCards, startTurn, toolInTurn, waitIdle } from "./helpers/sched-helpers.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay.stop());

const now = async () => Date.parse(await relay.advance(0));
const list = async (mcp: any) => {
  const r = await mcp.call({ action: "list_schedules" });
  assert.equal(r.ok, true, JSON.stringify(r));
  return r.schedules as any[];
};

test("schedule answers with the spec's shape; the message fires on the clock with the header line", async () => {
  const a = await relay.createSession({ title: "Desk" });
  const mcp = await relay.mcp(a);
  const t0 = await now();
  const at = iso(t0 + 30 * MIN);
  const r = await mcp.call({
    action: "schedule",
    title: "Nightly review",
    at,
    every_minutes: 1440,
    text: "Review yesterday's merged changes.",
  });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.match(r.schedule_id, /^sch_[0-9a-z]{12}$/);
  assert.equal(r.relay, "desk");
  assert.equal(r.summary, `schedule → desk: every 1440 min, next ${at} (${r.schedule_id})`);
  assert.deepEqual(r.schedule, {
    id: r.schedule_id,
    title: "Nightly review",
    everyMinutes: 1440,
    once: false,
    nextFireAt: at,
  });

  await relay.advance(30 * MIN - 1);
  assert.equal((await messages(relay, a, "schedule")).length, 0, "not before its time");
  await relay.advance(1);
  const [m] = await relay.waitFor(async () => {
    const s = await messages(relay, a, "schedule");
    return s.length ? s : undefined;
  });
  assert.equal(
    m.text,
    `[relay schedule ${r.schedule_id} "Nightly review" · every 1440 min · set in this conversation · automated message from OAR, not from the user; it approves nothing]\nReview yesterday's merged changes.`,
  );
  assert.ok(!m.from, "not a prompt from the user or an agent");
  const s = await waitIdle(relay, a);
  assert.ok(
    s.messages.some((x: any) => x.role === "agent" && x.text.startsWith("echo: [relay schedule")),
    "the turn ran",
  );
  const [l] = await list(mcp);
  assert.equal(l.firedCount, 1);
  assert.equal(l.lastFiredAt, at);
  assert.equal(l.nextFireAt, iso(Date.parse(at) + 1440 * MIN));
  await mcp.call({ action: "unschedule", schedule_id: r.schedule_id });
});

test("refusals: neither at nor every_minutes, a bad or past at, another relay's name, and the setting off", async () => {
  const a = await relay.createSession({ title: "Refused" });
  const mcp = await relay.mcp(a);
  const none = await mcp.call({ action: "schedule", text: "x", title: "t" });
  assert.equal(none.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(none.error, /at .*every_minutes.*Nothing was scheduled\.$/);
  assert.equal(
    (await mcp.call({ action: "schedule", text: "x", at: "tomorrow-ish" })).code,
    "REMOTE_RELAY_INVALID_INPUT",
  );
  assert.equal(
    (await mcp.call({ action: "schedule", text: "x", at: iso((await now()) - MIN) })).code,
    "REMOTE_RELAY_INVALID_INPUT",
  );
  assert.equal(
    (await mcp.call({ action: "schedule", text: "x", every_minutes: 0 })).code,
    "REMOTE_RELAY_INVALID_INPUT",
  );
  assert.equal(
    (await mcp.call({ action: "schedule", text: "x", every_minutes: 2.5 })).code,
    "REMOTE_RELAY_INVALID_INPUT",
  );
  for (const action of ["schedule", "list_schedules", "unschedule"]) {
    const r = await mcp.call({ action, relay: "build-box", text: "x", every_minutes: 5, schedule_id: "sch_x" });
    assert.equal(r.code, "REMOTE_RELAY_UNSUPPORTED", `${action}: ${JSON.stringify(r)}`);
    assert.match(r.error, /^Schedules work only on this relay/);
  }
  assert.equal(
    (await mcp.call({ action: "schedule", text: "x", every_minutes: 5, session: "ses_nosuchthing" })).code,
    "REMOTE_RELAY_NOT_FOUND",
  );
  const archived = await relay.createSession({ title: "Archived" });
  await relay.api("POST", `/api/sessions/${archived}/archive`);
  assert.equal(
    (await mcp.call({ action: "schedule", text: "x", every_minutes: 5, session: archived })).code,
    "REMOTE_RELAY_ARCHIVED",
  );
  // "this" and this relay's own name are fine.
  const ok = await mcp.call({ action: "schedule", relay: "desk", text: "x", every_minutes: 5 });
  assert.equal(ok.ok, true, JSON.stringify(ok));
  await relay.api("PATCH", "/api/settings", { agentSessions: false });
  try {
    assert.equal((await mcp.call({ action: "schedule", text: "x", every_minutes: 5 })).code, "REMOTE_RELAY_DISABLED");
    assert.equal((await mcp.call({ action: "list_schedules" })).code, "REMOTE_RELAY_DISABLED");
  } finally {
    await relay.api("PATCH", "/api/settings", { agentSessions: true });
  }
  assert.deepEqual(
    (await list(mcp)).map((s) => s.id),
    [ok.schedule_id],
    "nothing else was created",
  );
  await mcp.call({ action: "unschedule", schedule_id: ok.schedule_id });
});

test("a one-off with only at: once, fires once and ends as fired; listed for an hour", async () => {
  const a = await relay.createSession({ title: "Once" });
  const mcp = await relay.mcp(a);
  const at = iso((await now()) + 5 * MIN);
  const r = await mcp.call({ action: "schedule", at, text: "just once" });
  assert.equal(r.schedule.once, true);
  assert.equal(r.summary, `schedule → desk: once at ${at} (${r.schedule_id})`);
  await relay.advance(5 * MIN);
  await relay.waitFor(async () => (await messages(relay, a, "schedule")).length === 1);
  await waitIdle(relay, a);
  await relay.advance(24 * 60 * MIN);
  assert.equal((await messages(relay, a, "schedule")).length, 1);
  // Ended more than an hour ago by now: gone from the list. A fresh one shows its end for an hour.
  assert.equal((await list(mcp)).length, 0);
  const r2 = await mcp.call({ action: "schedule", at: iso((await now()) + MIN), text: "again" });
  await relay.advance(MIN);
  await waitIdle(relay, a);
  const [l] = await list(mcp);
  assert.deepEqual(
    [l.id, l.active, l.endReason, l.once, l.firedCount, l.nextFireAt],
    [r2.schedule_id, false, "fired", true, 1, null],
  );
  await relay.advance(61 * MIN);
  assert.equal((await list(mcp)).length, 0);
});

test("a message arriving during a turn is queued; no pile-up while the last firing still waits (skippedCount)", async () => {
  const a = await relay.createSession({ title: "Busy" });
  const mcp = await relay.mcp(a);
  const r = await mcp.call({ action: "schedule", title: "Poll", every_minutes: 1, text: "poll" });
  await startTurn(relay, a, "/stream 1 10\n/hang"); // writes "chunk 1", then runs until stopped
  await relay.waitFor(async () => (await relay.session(a)).inFlight?.text.includes("chunk 1"));
  await relay.advance(MIN); // fires: queued behind the running turn
  let s = await relay.session(a);
  assert.equal(s.messages.filter((m: any) => m.role === "schedule").length, 1);
  assert.equal(s.state, "running_turn");
  await relay.advance(MIN); // still waiting → skipped
  await relay.advance(MIN); // skipped again
  let [l] = await list(mcp);
  assert.equal(l.firedCount, 1);
  assert.equal(l.skippedCount, 2);
  assert.equal((await messages(relay, a, "schedule")).length, 1);
  await relay.api("POST", `/api/sessions/${a}/stop`);
  s = await waitIdle(relay, a);
  const replies = s.messages.filter((m: any) => m.role === "agent");
  assert.match(replies.at(-1).text, /^echo: \[relay schedule /, "the queued firing ran once the turn ended");
  assert.equal(replies.length, 2);
  assert.equal(replies[0].text, "chunk 1", "it did not steer into the running turn");
  await relay.advance(MIN);
  await relay.waitFor(async () => (await messages(relay, a, "schedule")).length === 2);
  [l] = await list(mcp);
  assert.equal(l.firedCount, 2);
  assert.equal(l.skippedCount, 2);
  await waitIdle(relay, a);
  await mcp.call({ action: "unschedule", schedule_id: r.schedule_id });
});

test("into another session: it runs in that session's own mode; list_schedules shows both sides with every field", async () => {
  const a = await relay.createSession({ title: "Setter" });
  const b = await relay.createSession({ title: "Receiver", mode: "ask" });
  const mcp = await relay.mcp(a);
  const t0 = await now();
  const text = `/tool ${JSON.stringify({ action: "archive", relay: "this", session: a })}`;
  const r = await mcp.call({ action: "schedule", title: "Cleanup", session: b, every_minutes: 60, text });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.summary, `schedule → desk session ${b}: every 60 min, next ${iso(t0 + 60 * MIN)} (${r.schedule_id})`);
  const bm = await relay.mcp(b);
  const fromB = (await list(bm))[0];
  const fromA = (await list(mcp))[0];
  assert.deepEqual(fromA, fromB);
  assert.deepEqual(fromB, {
    id: r.schedule_id,
    session: { id: b, title: "Receiver" },
    setBy: { id: a, title: "Setter" },
    title: "Cleanup",
    text,
    at: null,
    everyMinutes: 60,
    once: false,
    nextFireAt: iso(t0 + 60 * MIN),
    lastFiredAt: null,
    firedCount: 0,
    active: true,
  });
  await relay.advance(60 * MIN);
  // B runs in its own ask mode: its write raises a card in B (the setter runs in agent mode).
  const card = await relay.waitFor(async () => (await pendingCards(relay, b))[0]);
  assert.equal(card.action, "archive");
  await relay.api("POST", `/api/cards/${card.id}`, { decision: "deny" });
  await waitIdle(relay, b);
  assert.ok(!(await relay.session(a)).archived);
  await relay.api("DELETE", `/api/schedules/${r.schedule_id}`);
});

test("unschedule ends only the conversation's own; Cancel in the owner API ends it; archive and delete end theirs", async () => {
  const a = await relay.createSession({ title: "Owner of" });
  const b = await relay.createSession({ title: "Into" });
  const c = await relay.createSession({ title: "Stranger" });
  const mcp = await relay.mcp(a);
  const bm = await relay.mcp(b);
  const s1 = (await mcp.call({ action: "schedule", every_minutes: 10, text: "one" })).schedule_id;
  const s2 = (await mcp.call({ action: "schedule", every_minutes: 10, text: "two", session: b })).schedule_id;
  const s3 = (await mcp.call({ action: "schedule", every_minutes: 10, text: "three", session: b })).schedule_id;
  const s4 = (await bm.call({ action: "schedule", every_minutes: 10, text: "four" })).schedule_id;

  const stranger = await (await relay.mcp(c)).call({ action: "unschedule", schedule_id: s1 });
  assert.equal(stranger.code, "REMOTE_RELAY_NOT_FOUND");
  assert.match(stranger.error, /Nothing was unscheduled\.$/);
  // B may end one that fires into it, though A set it.
  const u = await bm.call({ action: "unschedule", schedule_id: s2 });
  assert.equal(u.ok, true, JSON.stringify(u));
  const cancel = await relay.api("DELETE", `/api/schedules/${s3}`);
  assert.equal(cancel.status, 200);
  assert.equal(cancel.json.schedule.endReason, "unscheduled");
  assert.equal((await relay.api("DELETE", `/api/schedules/${s3}`)).status, 404);
  assert.equal((await relay.api("DELETE", "/api/schedules/sch_nosuchthing")).status, 404);

  const s5 = (await mcp.call({ action: "schedule", every_minutes: 10, text: "five", session: b })).schedule_id;
  await relay.api("POST", `/api/sessions/${b}/archive`); // ends s4 (into B) and s5 (into B)
  const d = await relay.createSession({ title: "Setter to delete" });
  const dm = await relay.mcp(d);
  const s6 = (await dm.call({ action: "schedule", every_minutes: 10, text: "six", session: a })).schedule_id;
  await relay.api("DELETE", `/api/sessions/${d}`); // its setter is deleted

  const byId = Object.fromEntries((await list(mcp)).map((s) => [s.id, s]));
  assert.equal(byId[s1].active, true);
  assert.equal(byId[s2].endReason, "unscheduled");
  assert.equal(byId[s3].endReason, "unscheduled");
  assert.equal(byId[s5].endReason, "archived");
  assert.equal(byId[s6].endReason, "deleted");
  const ended = (await relay.api("GET", `/api/schedules?session=${b}`)).json.schedules.find((s: any) => s.id === s4);
  assert.equal(ended.endReason, "archived");

  await relay.advance(10 * MIN);
  await relay.waitFor(async () => (await messages(relay, a, "schedule")).length === 1);
  await waitIdle(relay, a);
  assert.equal((await messages(relay, a, "schedule"))[0].text.split("\n")[1], "one", "only the active one fired");
  assert.equal((await messages(relay, b, "schedule")).length, 0);
  await mcp.call({ action: "unschedule", schedule_id: s1 });
});

test("limits: 20 firing into a conversation, 20 set by it for others (REMOTE_RELAY_SCHEDULE_LIMIT)", async () => {
  const a = await relay.createSession({ title: "Many" });
  const mcp = await relay.mcp(a);
  for (let i = 0; i < 20; i++)
    assert.equal((await mcp.call({ action: "schedule", every_minutes: 600, text: `own ${i}` })).ok, true);
  const over = await mcp.call({ action: "schedule", every_minutes: 600, text: "own 20" });
  assert.equal(over.code, "REMOTE_RELAY_SCHEDULE_LIMIT", JSON.stringify(over));
  assert.match(over.error, /Nothing was scheduled\.$/);

  const b = await relay.createSession({ title: "B" });
  const c = await relay.createSession({ title: "C" });
  for (let i = 0; i < 10; i++) {
    assert.equal((await mcp.call({ action: "schedule", every_minutes: 600, text: `b ${i}`, session: b })).ok, true);
    assert.equal((await mcp.call({ action: "schedule", every_minutes: 600, text: `c ${i}`, session: c })).ok, true);
  }
  const d = await relay.createSession({ title: "D" });
  const setOver = await mcp.call({ action: "schedule", every_minutes: 600, text: "d", session: d });
  assert.equal(setOver.code, "REMOTE_RELAY_SCHEDULE_LIMIT", JSON.stringify(setOver));
  assert.equal((await list(mcp)).length, 40);
  // Into a conversation from others counts toward its 20: B has 10 from A; 10 more from E fit, the 21st not.
  const em = await relay.mcp(await relay.createSession({ title: "E" }));
  for (let i = 0; i < 10; i++)
    assert.equal((await em.call({ action: "schedule", every_minutes: 600, text: `e ${i}`, session: b })).ok, true);
  assert.equal(
    (await em.call({ action: "schedule", every_minutes: 600, text: "e 10", session: b })).code,
    "REMOTE_RELAY_SCHEDULE_LIMIT",
  );
  for (const s of [a, b, c]) await relay.api("POST", `/api/sessions/${s}/archive`);
});

test("in ask mode schedule needs a card when set", async () => {
  const a = await relay.createSession({ title: "Asky", mode: "ask" });
  const mcp = await relay.mcp(a);
  const noTurn = await mcp.call({ action: "schedule", every_minutes: 5, text: "x" });
  assert.equal(noTurn.code, "REMOTE_RELAY_NO_ACTIVE_TURN");
  const denied = await toolInTurn(relay, a, { action: "schedule", relay: "this", every_minutes: 5, text: "x" }, "deny");
  assert.equal(denied.code, "REMOTE_RELAY_PERMISSION");
  assert.equal((await list(mcp)).length, 0);
  const ok = await toolInTurn(relay, a, { action: "schedule", relay: "this", every_minutes: 5, text: "x" });
  assert.equal(ok.ok, true, JSON.stringify(ok));
  assert.equal((await list(mcp)).length, 1);
  await relay.api("POST", `/api/sessions/${a}/archive`);
});

test("a relay emulating OAR 0.9.15 refuses schedules and asks with REMOTE_RELAY_UNSUPPORTED", async () => {
  const old = await TestRelay.start({ emulateVersion: "0.9.15" });
  try {
    const a = await old.createSession({ title: "Old" });
    const mcp = await old.mcp(a);
    for (const args of [
      { action: "schedule", every_minutes: 5, text: "x" },
      { action: "list_schedules" },
      { action: "unschedule", schedule_id: "sch_x" },
      { action: "ask", question: "q?" },
      { action: "list_questions" },
      { action: "withdraw", question_id: "ask_x" },
    ]) {
      const r = await mcp.call(args);
      assert.equal(r.code, "REMOTE_RELAY_UNSUPPORTED", `${args.action}: ${JSON.stringify(r)}`);
    }
    assert.equal((await old.api("GET", "/api/inbox")).json.questions.length, 0);
  } finally {
    await old.stop();
  }
});
