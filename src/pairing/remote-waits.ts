import type { Relay } from "../relay.ts";
import { sql } from "../watching/sql.ts";

// No echo across a link (relay_tool.md §9 "Fewer wake-ups"): a conversation that sent a
// prompt to a paired relay and waited for it to its end already has the reply, so that
// turn's turn_end, arriving through its subscription there, does not wake it. The calling
// relay is the one that knows what it waited for, so the rule lives here, as it does for
// local prompts (watching.ts promptSent/replyReceived): while the wait runs, the event is
// written held as an echo; when the reply came, it is dropped. The event may also come after
// the reply (the link's poll is separate from the call): then a dropped row under the
// event's key is written first, and the event meets it (the store keeps one row per key).

const FINAL = new Set(["done", "stopped", "error"]);

export class RemoteWaits {
  /** watcher → event keys (`peer:<relay>:turn:<id>`) of remote turns it is waiting on. */
  private waits = new Map<string, Set<string>>();

  constructor(private relay: Relay) {}

  static key(relayName: string, turnId: string): string {
    return `peer:${relayName}:turn:${turnId}`;
  }

  waiting(watcher: string, relayName: string, turnId: string): void {
    const k = RemoteWaits.key(relayName, turnId);
    if (!this.waits.has(watcher)) this.waits.set(watcher, new Set());
    this.waits.get(watcher)!.add(k);
  }

  /** Is that watcher waiting on the turn this event key names? */
  has(watcher: string, key: string): boolean {
    return !!this.waits.get(watcher)?.has(key);
  }

  /** The wait ended with `status` (the latest the calling relay saw). */
  ended(watcher: string, relayName: string, turnId: string, status: string): void {
    const k = RemoteWaits.key(relayName, turnId);
    const set = this.waits.get(watcher);
    set?.delete(k);
    if (set && !set.size) this.waits.delete(watcher);
    const db = this.relay.db;
    if (!db.open) return;
    const watch = this.relay.watch;
    if (FINAL.has(status)) {
      const mirrors = sql(db, "SELECT 1 FROM subscriptions WHERE watcher = ? AND relay = ? COLLATE NOCASE AND ended_at IS NULL LIMIT 1").get(watcher, relayName);
      db.transaction(() => {
        const r = sql(db, "UPDATE watch_events SET state = 'dropped' WHERE watcher = ? AND key = ? AND type = 'turn_end' AND keep = 0 AND state IN ('held', 'ready')").run(watcher, k);
        const known = sql(db, "SELECT 1 FROM watch_events WHERE watcher = ? AND key = ?").get(watcher, k);
        if (!r.changes && !known && mirrors) {
          // Not here yet: the row it will meet says it was answered already.
          watch.delivery.add(watcher, {
            key: k, type: "turn_end", sessionId: null, turnId: null, line: "", urgent: false, subs: [], at: this.relay.clock.now(),
            state: "dropped" as never, hold: null, holdSub: null, releaseAt: null, echo: false, keep: false,
          });
        }
      })();
    } else {
      // The wait ran out: the turn_end wakes it as for any prompt it did not wait for.
      sql(db, "UPDATE watch_events SET echo = 0 WHERE watcher = ? AND key = ? AND echo = 1").run(watcher, k);
    }
    watch.delivery.run(watcher);
  }
}
