import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";

/** A group's undeleted sessions, oldest first (the owner's group view). */
export function groupSessions(db: Db, groupId: string): { id: string; title: string }[] {
  return sql(db, "SELECT id, title FROM sessions WHERE group_id = ? AND deleted_at IS NULL ORDER BY created_at").all(
    groupId,
  ) as { id: string; title: string }[];
}

/** Every session of a dissolved group leaves it (call inside the caller's transaction). */
export function clearGroup(db: Db, groupId: string): void {
  sql(db, "UPDATE sessions SET group_id = NULL WHERE group_id = ?").run(groupId);
}
