import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";

/** When the owner last wrote in the conversation themselves (not an agent, an event or a
 * schedule), or null: a newer owner message resets loop protection, here and on the relays
 * its calls reach (pairing: the caller's `loopEpoch`). */
export function lastOwnerMessageAt(db: Db, sessionId: string): number | null {
  const row = sql(
    db,
    "SELECT MAX(created_at) AS at FROM messages WHERE session_id = ? AND role = 'user' AND from_json IS NULL",
  ).get(sessionId) as { at: number | null };
  return row.at;
}
