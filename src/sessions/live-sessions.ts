// Which sessions are live (neither archived nor deleted), as watching counts and checks them:
// the list badge of an all-scope watcher, a watcher's outbox, all_idle and heartbeat counts.
import type { Db } from "../store/db.ts";

export interface LiveSessions {
  isLive(id: string): boolean;
  /** How many: a walk of the live index (10,000 entries at 100,000 stored), kept until this
   * connection writes anything (as the list's `total`, list-query.ts), so a page of all-scope
   * watchers counts once. */
  count(): number;
  /** The live ones among `ids`. */
  among(ids: string[]): string[];
  /** Every live one but `id`. */
  allBut(id: string): string[];
}

export function liveSessions(db: Db): LiveSessions {
  const changes = db.prepare("SELECT total_changes() AS c");
  const count = db.prepare(
    "SELECT COUNT(*) AS n FROM sessions INDEXED BY sessions_live_order WHERE deleted_at IS NULL AND archived_at IS NULL",
  );
  const one = db.prepare("SELECT 1 FROM sessions WHERE id = ? AND deleted_at IS NULL AND archived_at IS NULL");
  const among = db
    .prepare(
      "SELECT id FROM sessions WHERE deleted_at IS NULL AND archived_at IS NULL AND id IN (SELECT value FROM json_each(?))",
    )
    .pluck();
  const allBut = db
    .prepare("SELECT id FROM sessions WHERE archived_at IS NULL AND deleted_at IS NULL AND id != ?")
    .pluck();
  let kept = { changes: -1, n: 0 };
  return {
    isLive: (id) => one.get(id) !== undefined,
    count() {
      const c = (changes.get() as { c: number }).c;
      if (c !== kept.changes) kept = { changes: c, n: (count.get() as { n: number }).n };
      return kept.n;
    },
    among: (ids) => (ids.length ? (among.all(JSON.stringify(ids)) as string[]) : []),
    allBut: (id) => allBut.all(id) as string[],
  };
}
