import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";
import type { QuestionRow } from "./ask-user.ts";

/** Questions asked or ended since `from` (watching's start-up catch-up, watching/recovery.ts). */
export function questionsChangedSince(db: Db, from: number): QuestionRow[] {
  return sql(db, "SELECT * FROM questions WHERE created_at >= ? OR ended_at >= ?").all(from, from) as QuestionRow[];
}
