import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";
import type { TurnRow } from "./types.ts";

/** Turns that ended since `from` (watching's start-up catch-up, watching/recovery.ts). "+status":
 * looked up by when they ended (turns_ended), not among every finished one. */
export function turnsEndedSince(db: Db, from: number): TurnRow[] {
  return sql(db, "SELECT * FROM turns WHERE ended_at >= ? AND +status IN ('done', 'stopped', 'error')").all(
    from,
  ) as TurnRow[];
}
