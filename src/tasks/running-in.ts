// Sessions with a running background task, as watching asks (all_idle, heartbeats).
import type { Db } from "../store/db.ts";

export interface RunningIn {
  /** Those of `ids` (in their order) with a running task: each looked up by index. */
  among(ids: string[]): string[];
  /** Every live session (neither archived nor deleted) with a running task. */
  live(): string[];
}

export function runningIn(db: Db): RunningIn {
  const among = db
    .prepare(`SELECT j.value FROM json_each(?) j
    WHERE EXISTS (SELECT 1 FROM tasks k WHERE k.session_id = j.value AND k.status = 'running')`)
    .pluck();
  const live = db
    .prepare(`SELECT DISTINCT x.session_id FROM tasks x JOIN sessions s ON s.id = x.session_id
    AND s.archived_at IS NULL AND s.deleted_at IS NULL WHERE x.status = 'running'`)
    .pluck();
  return {
    among: (ids) => among.all(JSON.stringify(ids)) as string[],
    live: () => live.all() as string[],
  };
}
