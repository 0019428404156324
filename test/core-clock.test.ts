// The relay's one clock (contract §7): the manual clock fires everything that fell due in
// time order, each at its own time, also work that earlier work set going; `set` may go
// back; cancelled timers stay silent. The real clock fires on real time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ManualClock, RealClock } from "../src/core/clock.ts";

const T0 = Date.parse("2026-03-01T00:00:00.000Z");

test("a step fires due entries in time order, each seeing the clock at its own due time", async () => {
  const clock = new ManualClock(T0);
  const seen: [string, number][] = [];
  clock.at(T0 + 300, () => seen.push(["c", clock.now() - T0]));
  clock.at(T0 + 100, () => seen.push(["a", clock.now() - T0]));
  clock.at(T0 + 200, () => seen.push(["b1", clock.now() - T0]));
  clock.at(T0 + 200, () => seen.push(["b2", clock.now() - T0]));
  clock.at(T0 + 900, () => seen.push(["late", clock.now() - T0]));
  assert.equal(await clock.advance(500), T0 + 500);
  assert.deepEqual(seen, [
    ["a", 100],
    ["b1", 200],
    ["b2", 200],
    ["c", 300],
  ]);
  assert.equal(clock.now(), T0 + 500);
});

test("work set going by a fired entry runs at that entry's time, before later entries", async () => {
  const clock = new ManualClock(T0);
  const seen: string[] = [];
  // A periodic job written with awaits: every 60 s it records the time and waits again.
  (async () => {
    for (let i = 0; i < 3; i++) {
      await clock.until(clock.now() + 60_000);
      seen.push(`tick ${(clock.now() - T0) / 1000}`);
    }
  })();
  clock.at(T0 + 90_000, () => seen.push("at 90"));
  await clock.advance(200_000);
  assert.deepEqual(seen, ["tick 60", "at 90", "tick 120", "tick 180"]);
});

test("set can move the clock back; work due by the new time runs, later work waits", async () => {
  const clock = new ManualClock(T0);
  await clock.set(T0 + 3_600_000);
  const seen: number[] = [];
  clock.at(T0 + 60_000, () => seen.push(1)); // already past: fires on the next tick
  clock.at(T0 + 7_200_000, () => seen.push(2));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen, [1]);
  assert.equal(await clock.set(T0), T0);
  assert.deepEqual(seen, [1]);
  await clock.set(T0 + 7_200_000);
  assert.deepEqual(seen, [1, 2]);
});

test("cancelled timers and aborted waits never fire", async () => {
  const clock = new ManualClock(T0);
  let fired = 0;
  const cancel = clock.at(T0 + 10, () => fired++);
  cancel();
  const ac = new AbortController();
  const waited = clock.until(T0 + 20, ac.signal).then(() => "resolved");
  ac.abort();
  assert.equal(await waited, "resolved");
  await clock.advance(100);
  assert.equal(fired, 0);
});

test("a failing timer does not stop the others", async () => {
  const clock = new ManualClock(T0);
  const seen: number[] = [];
  const orig = console.error;
  console.error = () => {};
  try {
    clock.at(T0 + 1, () => {
      throw new Error("boom");
    });
    clock.at(T0 + 2, () => seen.push(2));
    await clock.advance(5);
  } finally {
    console.error = orig;
  }
  assert.deepEqual(seen, [2]);
});

test("the real clock fires on real time", async () => {
  const clock = new RealClock();
  const keepAlive = setInterval(() => {}, 1000); // the relay's timers are unref'd: its server keeps it up
  try {
    const start = clock.now();
    await clock.until(start + 30);
    assert.ok(clock.now() >= start + 30);
  } finally {
    clearInterval(keepAlive);
  }
});
