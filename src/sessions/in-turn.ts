// Sessions with a queued or running turn, as watching asks: a watcher in a turn gets its
// message when the turn ends; all_idle and heartbeats look for working sessions.
import type { Db } from "../store/db.ts";

export interface InTurn {
  /** Whether the session has a queued or running turn. */
  inTurn(sessionId: string): boolean;
  /** Those of `ids` (in their order) with a queued or running turn: each looked up by index. */
  among(ids: string[]): string[];
  /** Every live session (neither archived nor deleted) with a queued or running turn. */
  live(): string[];
}

export function inTurn(db: Db): InTurn {
  const one = db.prepare(
    "SELECT 1 AS busy FROM turns WHERE session_id = ? AND status IN ('queued', 'running') LIMIT 1",
  );
  const among = db
    .prepare(`SELECT j.value FROM json_each(?) j
    WHERE EXISTS (SELECT 1 FROM turns t WHERE t.session_id = j.value AND t.status IN ('queued', 'running'))`)
    .pluck();
  const live = db
    .prepare(`SELECT DISTINCT x.session_id FROM turns x JOIN sessions s ON s.id = x.session_id
    AND s.archived_at IS NULL AND s.deleted_at IS NULL WHERE x.status IN ('queued', 'running')`)
    .pluck();
  return {
    inTurn: (id) => one.get(id) !== undefined,
    among: (ids) => among.all(JSON.stringify(ids)) as string[],
    live: () => live.all() as string[],
  };
}
