import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";
import type { TaskRow } from "../sessions/types.ts";

/** Tasks that started or ended since `from` (watching's start-up catch-up, watching/recovery.ts). */
export function tasksChangedSince(db: Db, from: number): TaskRow[] {
  return sql(db, "SELECT * FROM tasks WHERE started_at >= ? OR ended_at >= ?").all(from, from) as TaskRow[];
}
