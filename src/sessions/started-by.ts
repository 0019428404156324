import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";

// The sessions a conversation started (via_session) and that are not deleted: the working
// limit (contract §6) counts those of them that have a queued or running turn.

export interface StartedSession {
  id: string;
  title: string;
}

export function startedBy(db: Db, callerId: string): StartedSession[] {
  return sql(db, "SELECT id, title FROM sessions WHERE via_session = ? AND deleted_at IS NULL").all(
    callerId,
  ) as StartedSession[];
}
