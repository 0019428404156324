import type { Clock } from "../core/clock.ts";
import type { Db } from "../store/db.ts";
import { hasMirrorOn } from "../watching/mirror-subs.ts";
import { dropTurnEnd, hasEventRow, wakeOnTurnEnd } from "../watching/remote-echo.ts";
import type { PairingWatch } from "./deps.ts";

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

  constructor(private d: { db: Db; clock: Clock; watch: Pick<PairingWatch, "delivery"> }) {}

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
    const db = this.d.db;
    if (!db.open) return;
    const delivery = this.d.watch.delivery;
    if (FINAL.has(status)) {
      const mirrors = hasMirrorOn(db, watcher, relayName);
      db.transaction(() => {
        const dropped = dropTurnEnd(db, watcher, k);
        if (!dropped && !hasEventRow(db, watcher, k) && mirrors) {
          // Not here yet: the row it will meet says it was answered already.
          delivery.add(watcher, {
            key: k,
            type: "turn_end",
            sessionId: null,
            turnId: null,
            line: "",
            urgent: false,
            subs: [],
            at: this.d.clock.now(),
            state: "dropped" as never,
            hold: null,
            holdSub: null,
            releaseAt: null,
            echo: false,
            keep: false,
          });
        }
      })();
    } else {
      // The wait ran out: the turn_end wakes it as for any prompt it did not wait for.
      wakeOnTurnEnd(db, watcher, k);
    }
    delivery.run(watcher);
  }
}
