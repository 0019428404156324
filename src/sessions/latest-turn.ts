import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";
import type { TurnRow } from "./types.ts";

/** A session's latest turn, whatever its status (`wait` without message_id when nothing is
 * queued or running); the rowid orders turns queued in the same millisecond. */
export function latestTurn(db: Db, sessionId: string): TurnRow | undefined {
  return sql(db, "SELECT * FROM turns WHERE session_id = ? ORDER BY queued_at DESC, rowid DESC LIMIT 1").get(
    sessionId,
  ) as TurnRow | undefined;
}
