import type { Db } from "../store/db.ts";

export interface StoppedTurn {
  id: string;
  message_id: string;
  status: string;
  error: string | null;
  ended_at: number | null;
}

/** A conversation's turns that were stopped or failed before writing a reply, newest first:
 * outcomes no message shows (the owner's page lists them beside the messages). */
export function stoppedTurns(db: Db, sessionId: string, limit: number): StoppedTurn[] {
  return db
    .prepare(
      `SELECT id, message_id, status, error, ended_at FROM turns WHERE session_id = ? AND status IN ('stopped', 'error') AND reply_message_id IS NULL ORDER BY ended_at DESC LIMIT ${limit}`,
    )
    .all(sessionId) as StoppedTurn[];
}
