import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";
import type { NewSub, SubscriptionStore } from "./subscriptions.ts";
import type { SubRow } from "./types.ts";

// Mirrors (pairing/mirrors.ts): a subscription this relay's conversation holds on a paired
// relay is kept here too, under the other relay's id and with `relay` naming it, so digests,
// quiet hours and list_subscriptions work here. The capture index never holds them (it reads
// relay = 'this' only). The pairing domain reads and moves them through these.

/** The active mirrors of subscriptions on that relay. */
export function mirrorsOn(db: Db, relay: string): SubRow[] {
  return sql(db, "SELECT * FROM subscriptions WHERE relay = ? COLLATE NOCASE AND ended_at IS NULL").all(
    relay,
  ) as SubRow[];
}

/** Mirrors on that relay the owner ended here (Unsubscribe) since `since`. */
export function unsubscribedMirrors(db: Db, relay: string, since: number): string[] {
  return (
    sql(
      db,
      "SELECT id FROM subscriptions WHERE relay = ? COLLATE NOCASE AND end_reason = 'unsubscribed' AND ended_at >= ?",
    ).all(relay, since) as { id: string }[]
  ).map((s) => s.id);
}

/** Does the watcher hold an active mirror on that relay? */
export function hasMirrorOn(db: Db, watcher: string, relay: string): boolean {
  return !!sql(
    db,
    "SELECT 1 FROM subscriptions WHERE watcher = ? AND relay = ? COLLATE NOCASE AND ended_at IS NULL LIMIT 1",
  ).get(watcher, relay);
}

/** The relays the watcher holds active mirrors on. */
export function mirrorRelaysOf(db: Db, watcher: string): string[] {
  return (
    sql(db, "SELECT DISTINCT relay FROM subscriptions WHERE watcher = ? AND relay != 'this' AND ended_at IS NULL").all(
      watcher,
    ) as { relay: string }[]
  ).map((r) => r.relay);
}

/** The watcher's active mirrors go to `to` (compaction; call inside its transaction). */
export function moveMirrors(db: Db, from: string, to: string): void {
  sql(db, "UPDATE subscriptions SET watcher = ? WHERE watcher = ? AND relay != 'this' AND ended_at IS NULL").run(
    to,
    from,
  );
}

/** Writes the mirror of subscription `id` on `relay`, in one transaction. */
export function insertMirror(
  db: Db,
  subs: Pick<SubscriptionStore, "insert">,
  n: NewSub,
  now: number,
  id: string,
  relay: string,
): void {
  db.transaction(() => {
    subs.insert(n, now, { id, heartbeat_due_at: null });
    db.prepare("UPDATE subscriptions SET relay = ? WHERE id = ?").run(relay, id);
  })();
}
