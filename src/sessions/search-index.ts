import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";

// Full-text search over messages and questions (contract §10.5): the queries over the two
// FTS5 tables of store/schema/search-index.ts.

/** Where a hit's matched words start and end in its snippet. */
export const MARK_OPEN = "<mark>";
export const MARK_CLOSE = "</mark>";

export interface SearchHitRow {
  kind: "message" | "question";
  id: string;
  session_id: string;
  title: string;
  role: string;
  archived: number;
  created_at: number;
  snippet: string;
}

/** The owner's words as an FTS5 query: every word must occur, each also as a prefix
 * ("pars" finds "parser"); quotes and operators in the words are taken as text. */
export function matchQuery(q: string): string | null {
  const words = q.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (!words.length) return null;
  return words
    .slice(0, 20)
    .map((w) => `"${w.replace(/"/g, '""')}"*`)
    .join(" ");
}

/** One page of hits, newest first, after the (created_at, id) of the cursor. */
export function searchPage(
  db: Db,
  match: string,
  limit: number,
  after: { at: number; id: string } | null,
): SearchHitRow[] {
  const cursor = after ? "AND (created_at < @at OR (created_at = @at AND id < @id))" : "";
  return sql(
    db,
    `
    SELECT * FROM (
      SELECT 'message' AS kind, m.id, m.session_id, s.title, m.role, s.archived_at IS NOT NULL AS archived, m.created_at,
        snippet(messages_fts, 0, '${MARK_OPEN}', '${MARK_CLOSE}', '…', 16) AS snippet
      FROM messages_fts JOIN messages m ON m.rowid = messages_fts.rowid
      JOIN sessions s ON s.id = m.session_id AND s.deleted_at IS NULL
      WHERE messages_fts MATCH @match
      UNION ALL
      SELECT 'question', q.id, q.session_id, s.title, 'question', s.archived_at IS NOT NULL, q.created_at,
        snippet(questions_fts, -1, '${MARK_OPEN}', '${MARK_CLOSE}', '…', 16)
      FROM questions_fts JOIN questions q ON q.rowid = questions_fts.rowid
      JOIN sessions s ON s.id = q.session_id AND s.deleted_at IS NULL
      WHERE questions_fts MATCH @match
    ) WHERE 1 ${cursor}
    ORDER BY created_at DESC, id DESC LIMIT @limit`,
  ).all({ match, limit, ...(after ?? {}) }) as SearchHitRow[];
}
