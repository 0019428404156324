// Start-up: the bus tells watchers only after a change commits, so a SIGKILL between the
// two could lose an event. Start-up therefore looks again at what ended recently (and at
// the turns the restart itself ended) and captures what no watcher has yet; the unique
// (watcher, key) makes this a no-op for everything captured before.
import { sql } from "./sql.ts";
import type { Db } from "../store/db.ts";
import { MINUTE } from "../core/clock.ts";
import type { Capture } from "./capture.ts";
import type { SubscriptionStore } from "./subscriptions.ts";
import type { Happening } from "./types.ts";
import { turnsEndedSince } from "../sessions/recent-turns.ts";
import { tasksChangedSince } from "../tasks/recent-tasks.ts";
import { questionsChangedSince } from "../questions/recent-questions.ts";

export function captureMissed(
  d: { db: Db; clock: { now(): number } },
  subs: SubscriptionStore,
  capture: Capture,
): void {
  if (!subs.hasWatchers()) return;
  const db = d.db;
  const now = d.clock.now();
  const last =
    (
      sql(db, "SELECT MAX(at) AS at FROM (SELECT at FROM watch_events ORDER BY seq DESC LIMIT 1000)").get() as {
        at: number | null;
      }
    ).at ?? now;
  // The manual clock restarts at the real time, which may lie before what was captured.
  const from = Math.min(last, now) - 10 * MINUTE;
  const found: Happening[] = [];
  const add = (h: Happening | null) => h && found.push({ ...h, recovered: true });
  for (const t of turnsEndedSince(db, from)) {
    add(capture.turnEnded(t, t.ended_at!));
  }
  for (const t of tasksChangedSince(db, from)) {
    if (t.started_at >= from) add(capture.taskChanged({ ...t, status: "running" }, t.started_at));
    if (t.ended_at != null && t.ended_at >= from) add(capture.taskChanged(t, t.ended_at));
  }
  for (const q of questionsChangedSince(db, from)) {
    if (q.created_at >= from && q.status !== "ended") add(capture.questionAsked(q, q.created_at));
    if (q.ended_at != null && q.ended_at >= from) add(capture.questionAnswered(q, q.ended_at));
  }
  found.sort((a, b) => a.at - b.at);
  for (const h of found) capture.capture(h);
}
