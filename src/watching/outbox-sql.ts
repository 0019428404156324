// The outbox's statements (delivery.ts), prepared once. Every query on open events names the
// partial index's condition, state IN ('held', 'ready'), word for word so SQLite uses it.
import type { Db } from "../store/db.ts";

export type OutboxStatements = ReturnType<typeof outboxStatements>;

export function outboxStatements(db: Db) {
  return {
    insert:
      db.prepare(`INSERT OR IGNORE INTO watch_events (watcher, key, seq, type, session_id, turn_id, line, urgent, subs_json, at, state, hold, hold_sub, release_at, echo, keep)
      VALUES (@watcher, @key, @seq, @type, @sessionId, @turnId, @line, @urgent, @subs, @at, @state, @hold, @holdSub, @releaseAt, @echo, @keep)`),
    openWindow:
      db.prepare(`INSERT INTO watchers (watcher, window_due_at) VALUES (?, ?) ON CONFLICT(watcher) DO UPDATE SET
      window_due_at = CASE WHEN window_due_at IS NULL OR window_due_at > excluded.window_due_at THEN excluded.window_due_at ELSE window_due_at END`),
    watcher: db.prepare("SELECT * FROM watchers WHERE watcher = ?"),
    clearWindow: db.prepare("UPDATE watchers SET window_due_at = NULL WHERE watcher = ?"),
    nextRelease: db.prepare(
      "SELECT MIN(release_at) AS at FROM watch_events WHERE watcher = ? AND state IN ('held', 'ready') AND state = 'held' AND echo = 0",
    ),
    dueHeld: db.prepare(`SELECT hold, hold_sub, capped, MAX(release_at) AS at FROM watch_events
      WHERE watcher = ? AND state IN ('held', 'ready') AND state = 'held' AND echo = 0 AND release_at <= ? GROUP BY hold, hold_sub, capped`),
    releaseAll: db.prepare(
      "UPDATE watch_events SET state = 'ready' WHERE watcher = ? AND state IN ('held', 'ready') AND state = 'held' AND echo = 0 AND release_at <= ?",
    ),
    // What goes out: the ready events and the held ones whose time has come, in the order
    // they happened here (seq; see Delivery.nextSeq).
    ready:
      db.prepare(`SELECT seq, line, urgent, hold, hold_sub, capped FROM watch_events WHERE watcher = ? AND state IN ('held', 'ready')
      AND (state = 'ready' OR (echo = 0 AND release_at <= ?)) ORDER BY seq`),
    sent: db.prepare(`UPDATE watch_events SET state = 'sent', message_id = ?, sent_at = ? WHERE watcher = ? AND state IN ('held', 'ready')
      AND (state = 'ready' OR (echo = 0 AND release_at <= ?))`),
    cap: db.prepare(`UPDATE watch_events SET state = 'held', capped = 1, release_at = ? WHERE watcher = ? AND state IN ('held', 'ready')
      AND (state = 'ready' OR (echo = 0 AND release_at <= ?))`),
    capHeld: db.prepare(
      "SELECT MIN(release_at) AS at FROM watch_events WHERE watcher = ? AND state IN ('held', 'ready') AND state = 'held' AND capped = 1",
    ),
    capAnchor: db.prepare("UPDATE watchers SET cap_anchor_at = ? WHERE watcher = ?"),
    // Only the past hour: a manual clock set back does not count wake-ups "from the future".
    wakeups: db.prepare("SELECT COUNT(*) AS n FROM watch_wakeups WHERE watcher = ? AND at > ? AND at <= ?"),
    wake: db.prepare("INSERT INTO watch_wakeups (watcher, at) VALUES (?, ?)"),
    pruneWakeups: db.prepare("DELETE FROM watch_wakeups WHERE watcher = ? AND at <= ?"),
    dropOpen: db.prepare("UPDATE watch_events SET state = 'dropped' WHERE watcher = ? AND state IN ('held', 'ready')"),
    pending: db.prepare(
      "SELECT watcher FROM watchers WHERE window_due_at IS NOT NULL UNION SELECT DISTINCT watcher FROM watch_events WHERE state IN ('held', 'ready')",
    ),
    maxSeq: db.prepare("SELECT MAX(seq) AS n FROM watch_events"),
    prune: db.prepare("DELETE FROM watch_events WHERE state IN ('sent', 'dropped') AND at < ?"),
  };
}
