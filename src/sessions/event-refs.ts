// What an event line says about a session and an ended turn (watching's capture path: once per
// event, so only what the line needs, from statements prepared once).
import type { Db } from "../store/db.ts";
import type { TurnRow } from "./types.ts";

/** A turn as its turn_end or error line tells it: the start of its reply and error only. */
export type EndedTurn = Pick<TurnRow, "id" | "session_id" | "status" | "reply_text" | "error">;

export interface EventRefs {
  /** The session's title and whether it is archived; undefined once deleted. */
  session(id: string): { title: string; archived_at: number | null } | undefined;
  /** The turn, with the first 400 characters of its reply and error (a reply can be long). */
  endedTurn(turnId: string): EndedTurn | undefined;
}

export function eventRefs(db: Db): EventRefs {
  const session = db.prepare("SELECT title, archived_at FROM sessions WHERE id = ? AND deleted_at IS NULL");
  const turn = db.prepare(
    "SELECT id, session_id, status, substr(reply_text, 1, 400) AS reply_text, substr(error, 1, 400) AS error FROM turns WHERE id = ?",
  );
  return {
    session: (id) => session.get(id) as { title: string; archived_at: number | null } | undefined,
    endedTurn: (turnId) => turn.get(turnId) as EndedTurn | undefined,
  };
}
