// SIGKILL with events held in a gathering window, a digest and a quiet window: after the
// restart each is delivered once, on time; and a capture the relay died before making is
// made at start-up.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import Database from "better-sqlite3";
import { TestRelay } from "./helpers/relay-process.ts";
import { FIRST, eventMessages, say, toolInTurn, waitEvents } from "./helpers/watch.ts";

let relay: TestRelay;
// A restart puts the manual clock back at the real time: the test's day is tomorrow, so that
// real time is always before every window the test sets up, whenever it runs.
const dayAfter = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const DAY = dayAfter(1);
const NEXT_DAY = dayAfter(2);
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay.stop());

test("held events survive SIGKILL and are delivered once each, on time", async () => {
  await relay.setClock(`${DAY}T10:00:00.000Z`);
  const watcher = await relay.createSession({ title: "Desk" });
  const g = await relay.createSession({ title: "Gathered" });
  const d = await relay.createSession({ title: "Digested" });
  const q = await relay.createSession({ title: "Quiet" });
  await toolInTurn(relay, watcher, { action: "subscribe", sessions: [g], events: ["turn_end"] });
  const mcp = await relay.mcp(watcher);
  const dig = await mcp.call({ action: "subscribe", sessions: [d], events: ["turn_end"], digest_minutes: 30 });
  assert.equal(dig.ok, true);
  await mcp.call({
    action: "subscribe",
    sessions: [q],
    events: ["turn_end"],
    quiet_hours: { from: "09:00", to: "12:00", tz: "UTC" },
  });

  await relay.setClock(`${DAY}T10:00:10.000Z`);
  await say(relay, g, "in the gathering window");
  await say(relay, d, "in the digest");
  await say(relay, q, "in the quiet window");
  assert.equal((await eventMessages(relay, watcher)).length, 0);

  await relay.restart(); // SIGKILL; the manual clock starts again at the real time
  await relay.setClock(`${DAY}T10:00:39.000Z`);
  assert.equal((await eventMessages(relay, watcher)).length, 0, "nothing early");
  await relay.setClock(`${DAY}T10:00:40.000Z`);
  let all = await waitEvents(relay, watcher, 1);
  assert.equal(
    all[0],
    `${FIRST}\n[relay event] session "Gathered" (${g}): turn_end (done) "echo: in the gathering window"`,
  );

  await relay.setClock(`${DAY}T10:29:59.000Z`);
  assert.equal((await eventMessages(relay, watcher)).length, 1);
  await relay.setClock(`${DAY}T10:30:00.000Z`);
  all = await waitEvents(relay, watcher, 2);
  assert.equal(all[1], `${FIRST}\n[relay event] session "Digested" (${d}): turn_end (done) "echo: in the digest"`);

  await relay.restart();
  await relay.setClock(`${DAY}T11:59:59.000Z`);
  assert.equal((await eventMessages(relay, watcher)).length, 2);
  await relay.setClock(`${DAY}T12:00:00.000Z`);
  all = await waitEvents(relay, watcher, 3);
  assert.equal(
    all[2],
    [
      FIRST,
      "Held during quiet hours (09:00\u201312:00 UTC): 1 event, delivered now that the window has ended; questions and errors came at once.",
      `[relay event] session "Quiet" (${q}): turn_end (done) "echo: in the quiet window"`,
    ].join("\n"),
  );

  // Once more down and up: nothing is delivered twice.
  await relay.restart();
  await relay.setClock(`${DAY}T13:00:00.000Z`);
  await new Promise((r) => setTimeout(r, 500));
  all = await eventMessages(relay, watcher);
  assert.equal(all.length, 3);
  for (const text of ["in the gathering window", "in the digest", "in the quiet window"]) {
    assert.equal(all.join("\n").split(text).length - 1, 1, `${text} exactly once`);
  }
});

test("a turn that ended just before the kill, not yet captured, is captured at start-up", async () => {
  await relay.setClock(`${NEXT_DAY}T10:00:00.000Z`);
  const watcher = await relay.createSession({ title: "Desk 2" });
  const a = await relay.createSession({ title: "Worker" });
  await toolInTurn(relay, watcher, { action: "subscribe", sessions: [a], events: ["turn_end"] });
  await relay.setClock(`${NEXT_DAY}T10:01:00.000Z`);
  await say(relay, a, "lost between commit and capture");
  await relay.kill();
  // What a SIGKILL between the turn's commit and the watcher's capture leaves behind (the
  // capture may also still have been in its write batch: then this finds nothing to delete).
  const db = new Database(join(relay.dataDir, "oar.db"));
  db.prepare("DELETE FROM watch_events WHERE watcher = ?").run(watcher);
  db.prepare("UPDATE watchers SET window_due_at = NULL WHERE watcher = ?").run(watcher);
  db.close();
  await relay.boot();
  await relay.setClock(`${NEXT_DAY}T10:02:00.000Z`);
  const all = await waitEvents(relay, watcher, 1);
  assert.equal(all.length, 1);
  assert.match(all[0], /turn_end \(done\) "echo: lost between commit and capture"$/);
});
