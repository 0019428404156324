import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";

// No echo of a prompt sent to a paired relay (pairing/remote-waits.ts), on the watcher's event
// rows: the same rule as for a prompt sent here (watching.ts replyReceived), under the event
// key the link writes (`peer:<relay>:turn:<id>`).

/** The watcher has the reply: that turn's turn_end does not wake it. True when one was there. */
export function dropTurnEnd(db: Db, watcher: string, key: string): boolean {
  return (
    sql(
      db,
      "UPDATE watch_events SET state = 'dropped' WHERE watcher = ? AND key = ? AND type = 'turn_end' AND keep = 0 AND state IN ('held', 'ready')",
    ).run(watcher, key).changes > 0
  );
}

/** The wait ran out: the turn_end wakes the watcher as for any prompt it did not wait for. */
export function wakeOnTurnEnd(db: Db, watcher: string, key: string): void {
  sql(db, "UPDATE watch_events SET echo = 0 WHERE watcher = ? AND key = ? AND echo = 1").run(watcher, key);
}

/** Has the watcher any event row under that key (whatever its state)? */
export function hasEventRow(db: Db, watcher: string, key: string): boolean {
  return !!sql(db, "SELECT 1 FROM watch_events WHERE watcher = ? AND key = ?").get(watcher, key);
}

/** Removes the mark "answered already" (an empty dropped row) so an event that must come
 * (a once subscription's) can be written under its key. */
export function clearAnsweredMark(db: Db, watcher: string, key: string): void {
  sql(db, "DELETE FROM watch_events WHERE watcher = ? AND key = ? AND state = 'dropped' AND line = ''").run(
    watcher,
    key,
  );
}
