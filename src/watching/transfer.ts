// Moving a watcher's subscriptions to another conversation (transfer_subscriptions, seed
// §9; compaction, contract §3): new subscriptions for the new watcher with the same options
// and timing, the old ones ended with their reason, and whatever the old watcher still had
// held or waiting moves along (once: an event both already have stays with the new one).
import type { Db } from "../store/db.ts";
import { sql } from "./sql.ts";
import type { SubscriptionStore } from "./subscriptions.ts";
import type { EndReason, Sub, SubRow } from "./types.ts";

export function moveSubscriptions(
  db: Db,
  subs: SubscriptionStore,
  from: string,
  to: string,
  reason: EndReason,
  now: number,
): SubRow[] {
  return db.transaction(() => {
    const out: SubRow[] = [];
    for (const sub of subs.ofWatcher(from)) {
      // The new watcher's own conversation is never watched.
      const sessions = sub.sessions.filter((s) => s !== to);
      if (!sub.all && !sessions.length) {
        subs.end(sub.id, reason, now);
        continue;
      }
      const row = subs.insert(newSubOf(sub, to, sessions), now, {
        created_at: sub.row.created_at,
        digest_anchor_at: sub.row.digest_anchor_at,
        heartbeat_due_at: sub.row.heartbeat_due_at,
        idle_armed: sub.row.idle_armed,
      });
      subs.end(sub.id, reason, now, row.id);
      sql(
        db,
        "UPDATE watch_events SET hold_sub = ? WHERE watcher = ? AND state IN ('held', 'ready') AND hold_sub = ?",
      ).run(row.id, from, sub.id);
      out.push(row);
    }
    sql(
      db,
      `UPDATE watch_events SET watcher = ? WHERE watcher = ? AND state IN ('held', 'ready')
      AND NOT EXISTS (SELECT 1 FROM watch_events x WHERE x.watcher = ? AND x.key = watch_events.key)`,
    ).run(to, from, to);
    sql(db, "UPDATE watch_events SET state = 'dropped' WHERE watcher = ? AND state IN ('held', 'ready')").run(from);
    const win = sql(db, "SELECT window_due_at FROM watchers WHERE watcher = ?").get(from) as
      | { window_due_at: number | null }
      | undefined;
    if (win?.window_due_at != null) {
      sql(
        db,
        `INSERT INTO watchers (watcher, window_due_at) VALUES (?, ?) ON CONFLICT(watcher) DO UPDATE SET
        window_due_at = MIN(COALESCE(window_due_at, excluded.window_due_at), excluded.window_due_at)`,
      ).run(to, win.window_due_at);
      sql(db, "UPDATE watchers SET window_due_at = NULL WHERE watcher = ?").run(from);
    }
    return out;
  })();
}

function newSubOf(sub: Sub, watcher: string, sessions: string[]) {
  const r = sub.row;
  return {
    watcher,
    all: sub.all,
    sessions,
    exclude: [...sub.exclude].filter((s) => s !== watcher),
    events: r.events_json ? JSON.parse(r.events_json) : null,
    once: sub.once,
    match: sub.match,
    stalledMinutes: sub.stalledMinutes,
    heartbeatMinutes: r.heartbeat_minutes,
    digestMinutes: r.digest_minutes,
    quiet: sub.quiet,
  };
}
