import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";

/** The titles of the undeleted sessions among `ids`, in one read (a list page names the same
 * starters and group heads many times over). */
export function titlesOf(db: Db, ids: readonly string[]): Map<string, string> {
  if (!ids.length) return new Map();
  const rows = sql(
    db,
    "SELECT id, title FROM sessions WHERE deleted_at IS NULL AND id IN (SELECT value FROM json_each(?))",
  ).all(JSON.stringify(ids)) as { id: string; title: string }[];
  return new Map(rows.map((r) => [r.id, r.title]));
}
