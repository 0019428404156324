// Schedules across SIGKILL restarts (seed §10 "Missed times", contract §1/§7): times missed
// while the relay was down fire once at start-up, without waiting for a clock step, the
// time grid is kept, and nothing fires twice. After a restart the manual clock starts at
// the real time, so the grid is laid out relative to the real now.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";

const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay.stop());

async function scheduleMessages(sessionId: string): Promise<any[]> {
  return (await relay.session(sessionId)).messages.filter((m: any) => m.role === "schedule");
}

async function listed(sessionId: string, id: string): Promise<any> {
  const mcp = await relay.mcp(sessionId);
  const r = await mcp.call({ action: "list_schedules" });
  assert.equal(r.ok, true, JSON.stringify(r));
  return r.schedules.find((s: any) => s.id === id);
}

test("a restart across several missed intervals of a repeating schedule fires once and keeps the grid", async () => {
  const R = Date.now();
  await relay.setClock(iso(R - 114 * MIN));
  const a = await relay.createSession({ title: "Nightly" });
  const first = R - 113 * MIN; // grid, …, R-3, R+7, …
  const mcp = await relay.mcp(a);
  const set = await mcp.call({ action: "schedule", title: "Tick", every_minutes: 10, at: iso(first), text: "tick" });
  assert.equal(set.ok, true, JSON.stringify(set));
  const id = set.schedule_id;

  await relay.advance(MIN); // the first time
  await relay.waitFor(
    async () => (await scheduleMessages(a)).length === 1 && (await relay.session(a)).state === "idle",
  );
  assert.equal((await listed(a, id)).firedCount, 1);

  // Down from R-113 to the real now: the 11 grid times R-103 … R-3 are missed.
  await relay.restart();
  // No clock step: start-up already handled them, with one firing.
  const msgs = await relay.waitFor(async () => {
    const m = await scheduleMessages(a);
    return m.length >= 2 && m;
  });
  const s = await listed(a, id);
  assert.equal(s.firedCount, 2);
  assert.equal(s.nextFireAt, iso(first + 12 * 10 * MIN), "the next time stays on the grid (first + whole intervals)");
  assert.ok(Date.parse(s.lastFiredAt) >= R, "fired at start-up, at the real time");
  await relay.waitFor(async () => (await relay.session(a)).state === "idle");
  assert.equal((await scheduleMessages(a)).length, 2, "one firing for all the missed times");
  assert.match(msgs[1].text, new RegExp(`^\\[relay schedule ${id} "Tick" · `));

  // Killed again right away: nothing was due, nothing fires twice.
  await relay.restart();
  const again = await listed(a, id);
  assert.equal(again.firedCount, 2);
  assert.equal(again.nextFireAt, iso(first + 12 * 10 * MIN));
  assert.equal((await scheduleMessages(a)).length, 2);

  // And the grid goes on from there.
  await relay.setClock(iso(first + 12 * 10 * MIN));
  await relay.waitFor(async () => (await scheduleMessages(a)).length === 3);
  const after3 = await listed(a, id);
  assert.equal(after3.firedCount, 3);
  assert.equal(after3.nextFireAt, iso(first + 13 * 10 * MIN));
});

test("a one-off schedule missed while down fires once at start-up and ends as fired", async () => {
  const R = Date.now();
  await relay.setClock(iso(R - 30 * MIN));
  const a = await relay.createSession({ title: "Once" });
  const mcp = await relay.mcp(a);
  const set = await mcp.call({ action: "schedule", at: iso(R - 20 * MIN), text: "once please" });
  assert.equal(set.ok, true, JSON.stringify(set));
  assert.equal(set.schedule.once, true);
  await relay.restart();
  await relay.waitFor(async () => (await scheduleMessages(a)).length === 1);
  const s = await listed(a, set.schedule_id);
  assert.equal(s.active, false);
  assert.equal(s.endReason, "fired");
  assert.equal(s.firedCount, 1);
  await relay.restart();
  assert.equal((await scheduleMessages(a)).length, 1, "never fires twice");
});
