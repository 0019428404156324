import type { Db } from "../store/db.ts";
import type { Clock } from "../core/clock.ts";
import { sql } from "../store/sql.ts";
import { clearGroup } from "../sessions/group-sessions.ts";
import { moveToGroup, type LifetimeDeps } from "./lifetime.ts";

// What the owner does to groups by hand (api/groups.ts): list, rename, dissolve, move a
// session in or out. Creating one is groups.ts createGroup.

/** The groups not dissolved, oldest first. */
export function liveGroupIds(d: { db: Db }): string[] {
  return (
    sql(d.db, "SELECT id FROM groups WHERE dissolved_at IS NULL ORDER BY created_at").all() as { id: string }[]
  ).map((r) => r.id);
}

export function renameGroup(d: { db: Db }, id: string, name: string): void {
  sql(d.db, "UPDATE groups SET name = ? WHERE id = ?").run(name, id);
}

/** The group ends and its sessions leave it, in one transaction. */
export function dissolveGroup(d: { db: Db; clock: Pick<Clock, "now"> }, id: string): void {
  d.db.transaction(() => {
    sql(d.db, "UPDATE groups SET dissolved_at = ? WHERE id = ?").run(d.clock.now(), id);
    clearGroup(d.db, id);
  })();
}

/** moveToGroup in its own transaction (a move by hand: null moves the session out). */
export function moveByHand(d: LifetimeDeps, sessionId: string, groupId: string | null): void {
  d.db.transaction(() => moveToGroup(d, sessionId, groupId))();
}
