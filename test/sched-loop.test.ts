// Loop protection and schedules (seed §10 "Another session", contract §5.4): a schedule
// into another session counts once when set and once at each firing; when the count is
// used up its firings are held until the owner speaks in the setting conversation or
// allows the card its agent raises for its next prompt to another agent (looked at every
// minute). Own-conversation schedules are never held; `ask` with session is not counted;
// an answer to a question does not reset the count.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { answeredEvents, iso, messages, MIN, pendingCards, waitIdle } from "./helpers/sched-helpers.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay.stop());

test("firings into another session are counted and held when the count is used up, then released", async () => {
  const a = await relay.createSession({ title: "Setter" });
  const b = await relay.createSession({ title: "Target" });
  const c = await relay.createSession({ title: "Third" });
  const mcp = await relay.mcp(a);
  const set = await mcp.call({ action: "schedule", title: "Tick", session: b, every_minutes: 1, text: "tick" });
  assert.equal(set.ok, true, JSON.stringify(set));
  const id = set.schedule_id;
  const entry = async () => (await mcp.call({ action: "list_schedules" })).schedules.find((s: any) => s.id === id);
  const fired = async () => (await messages(relay, b, "schedule")).length;

  // Counted once when set (1) and once per firing: 29 firings reach 30, the 30th is held.
  async function fireUntilHeld(): Promise<any> {
    for (;;) {
      // Two firings per round: the first one's turn runs, the second waits behind it (no skip).
      await relay.advance(MIN);
      await relay.advance(MIN);
      await waitIdle(relay, b);
      const e = await entry();
      if (e.heldForApproval) return e;
    }
  }
  let held = await fireUntilHeld();
  assert.equal(held.firedCount, 29, "one count when set + 29 firings = 30 prompts");
  assert.equal(await fired(), 29);
  const heldAt = held.heldSince;
  assert.equal(typeof heldAt, "string");
  await relay.advance(MIN);
  held = await entry();
  assert.equal(held.heldForApproval, true);
  assert.equal(held.heldSince, heldAt, "held since the first held time");
  assert.equal(held.firedCount, 29);
  assert.equal(held.skippedCount, undefined, "a held firing is not a skip");

  // ask with session is not counted: no card is needed although the count is used up.
  const q = await mcp.call({ action: "ask", question: "Keep ticking?", session: b });
  assert.equal(q.ok, true, JSON.stringify(q));
  // The answer reaches both, and does not reset the count: still held after the minute check.
  await relay.api("POST", `/api/questions/${q.question_id}`, { choice: "yes" });
  await relay.waitFor(async () => (await answeredEvents(relay, a)).length === 1);
  await waitIdle(relay, a);
  await waitIdle(relay, b);
  await relay.advance(MIN);
  assert.equal((await entry()).heldForApproval, true);
  assert.equal(await fired(), 29);

  // Own-conversation schedules are neither counted nor held.
  const own = await mcp.call({
    action: "schedule",
    at: iso(Date.parse(await relay.advance(0)) + MIN),
    text: "own one",
  });
  await relay.advance(MIN);
  await relay.waitFor(async () => (await messages(relay, a, "schedule")).length === 1);
  await waitIdle(relay, a);
  assert.equal(
    (await mcp.call({ action: "list_schedules" })).schedules.find((s: any) => s.id === own.schedule_id).endReason,
    "fired",
  );

  // The owner speaks in the setting conversation: released at once, no clock step needed.
  await relay.say(a, "carry on");
  await relay.waitFor(async () => (await fired()) === 30);
  let e = await entry();
  assert.equal(e.heldForApproval, undefined);
  assert.equal(e.firedCount, 30);
  await waitIdle(relay, b);

  // Used up again (1 after the reset + 29): held again.
  held = await fireUntilHeld();
  assert.equal(held.firedCount, 59);

  // The agent's next prompt to another agent raises a loop card; Allow releases the schedule
  // at the next minute check. A's turn here comes from its own schedule, not from the owner.
  const send = { action: "send", relay: "this", session: c, text: "hello", wait_seconds: 0 };
  await mcp.call({
    action: "schedule",
    at: iso(Date.parse(await relay.advance(0)) + 30_000),
    text: `/tool ${JSON.stringify(send)}`,
  });
  await relay.advance(30_000);
  const card = await relay.waitFor(async () => (await pendingCards(relay, a))[0]);
  assert.match(card.text, /loop protection/);
  await relay.api("POST", `/api/cards/${card.id}`, { decision: "allow" });
  await waitIdle(relay, a);
  await relay.advance(30_000); // the minute check
  await relay.waitFor(async () => (await fired()) === 60);
  e = await entry();
  assert.equal(e.heldForApproval, undefined);
  assert.equal(e.firedCount, 60);
  await waitIdle(relay, b);
  await waitIdle(relay, c);
  await mcp.call({ action: "unschedule", schedule_id: id });
});
