// The watching index at start (issue 14): it is built on first use, after the relay begins
// serving, and holds only what it indexes by; the rest of a subscription's row is read from
// the store when first asked for. Whatever asks first (a list's badge, an event, a
// subscribe, a setter's write) sees every active subscription, with its stored options.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb, type Db } from "../src/store/db.ts";
import { SubscriptionStore, type NewSub } from "../src/watching/subscriptions.ts";
import { WriteBehind } from "../src/watching/write-behind.ts";
import { TestRelay } from "./helpers/relay-process.ts";
import { FIRST, say, toolInTurn, waitEvents } from "./helpers/watch.ts";

const dir = mkdtempSync(join(tmpdir(), "oar-watch-index-"));
let db: Db;
before(() => {
  db = openDb(join(dir, "oar.db"));
});
after(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const sub = (over: Partial<NewSub>): NewSub => ({
  watcher: "ses_w",
  all: false,
  sessions: [],
  exclude: [],
  events: null,
  once: false,
  match: null,
  stalledMinutes: 15,
  heartbeatMinutes: null,
  digestMinutes: null,
  quiet: null,
  ...over,
});

test("a store's subscriptions are all in the index the first time anything asks, each with its stored options", () => {
  const writer = new SubscriptionStore(db, () => false, new WriteBehind(db));
  const now = Date.now();
  const a = writer.insert(sub({ sessions: ["ses_a", "ses_b"], events: ["turn_end"], match: "deploy" }), now);
  const all = writer.insert(sub({ watcher: "ses_v", all: true, exclude: ["ses_x"] }), now + 1);
  const beat = writer.insert(
    sub({
      watcher: "ses_v",
      sessions: ["ses_c"],
      heartbeatMinutes: 10,
      quiet: { from: "22:00", to: "07:00", tz: "UTC" },
    }),
    now + 2,
  );
  const ended = writer.insert(sub({ sessions: ["ses_d"] }), now + 3);
  writer.end(ended.id, "unsubscribed", now + 4);
  // A subscription held on a paired relay (its mirror here) is that relay's to capture.
  db.prepare(
    "INSERT INTO subscriptions (id, watcher, relay, scope, sessions_json, created_at, digest_anchor_at) VALUES ('sub_mirror', 'ses_w', 'other', 'sessions', '[\"ses_e\"]', ?, ?)",
  ).run(now, now);

  // As at a restart: a new store over the same file, nothing built yet.
  const subs = new SubscriptionStore(db, () => false, new WriteBehind(db));
  assert.equal(subs.hasWatchers(), true, "the store answers before the index is built");
  // A setter's write before the index exists is not lost: the row is read after it.
  subs.setIdleArmed(a.id, true);
  assert.equal(subs.isWatched("ses_b"), true);
  assert.equal(subs.isWatched("ses_x"), false, "excluded from the all-scope subscription");
  assert.equal(subs.isWatched("ses_d"), true, "the all-scope subscription watches it (the ended one does not count)");
  assert.equal(subs.isWatched("ses_v"), false, "its own watcher's all-scope subscription never watches it");
  assert.deepEqual(
    subs.watching("ses_a").map((s) => s.id),
    [a.id, all.id],
  );
  assert.deepEqual(
    subs.watching("ses_e").map((s) => s.id),
    [all.id],
    "the mirror is not indexed here",
  );
  assert.deepEqual(
    subs.ofWatcher("ses_v").map((s) => s.id),
    [all.id, beat.id],
  );
  assert.equal(subs.held("ses_w"), 2, "one here and the mirror");

  const got = subs.active(a.id)!;
  assert.deepEqual([...got.events], ["turn_end"]);
  assert.equal(got.match, "deploy");
  assert.equal(got.row.idle_armed, 1);
  assert.deepEqual(subs.active(beat.id)!.quiet, { from: "22:00", to: "07:00", tz: "UTC" });
  assert.deepEqual(
    subs.withHeartbeat().map((s) => s.id),
    [beat.id],
  );
  assert.deepEqual(
    subs.idleArmed().map((s) => s.id),
    [a.id],
  );
  // A row already read follows later writes.
  subs.setHeartbeatDue(beat.id, now + 60_000);
  assert.equal(subs.active(beat.id)!.row.heartbeat_due_at, now + 60_000);
  assert.equal(subs.active(ended.id), undefined);

  // Index changes after the first build keep the others as they were.
  const later = writer.insert(sub({ watcher: "ses_u", sessions: ["ses_f"] }), now + 5);
  subs.add(later.id);
  assert.deepEqual(
    subs.watching("ses_f").map((s) => s.id),
    [later.id, all.id],
  );
  subs.drop(a.id);
  assert.deepEqual(
    subs.watching("ses_a").map((s) => s.id),
    [all.id],
  );
});

test("after a restart the first requests see who watches what, and a watched session's turn reaches its watcher", async () => {
  const relay = await TestRelay.start();
  try {
    const watcher = await relay.createSession({ title: "Desk" });
    const watched = await relay.createSession({ title: "Watched" });
    const other = await relay.createSession({ title: "Other" });
    const r = await toolInTurn(relay, watcher, { action: "subscribe", sessions: [watched], events: ["turn_end"] });
    assert.equal(r.result.ok, true, JSON.stringify(r.result));
    await relay.restart();
    const list = (await relay.api("GET", "/api/sessions")).json.sessions as { id: string; watched: boolean }[];
    assert.equal(list.find((s) => s.id === watched)?.watched, true);
    assert.equal(list.find((s) => s.id === other)?.watched, false);
    await say(relay, watched, "after the restart");
    await relay.advance(31_000); // past the 30-second gathering window (manual clock)
    const events = await waitEvents(relay, watcher, 1);
    assert.match(events[0], new RegExp(`^${FIRST.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    assert.match(events[0], /session "Watched" .*turn_end \(done\) "echo: after the restart"/);
  } finally {
    await relay.stop();
  }
});
