import type { Db } from "../store/db.ts";

export interface UsageRow {
  provider: string;
  input: number;
  output: number;
  cost: number;
  turns: number;
}

/** The usage agents reported in their replies since `since`, summed per provider (each
 * session's current provider): from the reply messages' `usage` meta. */
export function usageRowsSince(db: Db, since: number): UsageRow[] {
  return db
    .prepare(`SELECT s.provider AS provider,
      SUM(COALESCE(json_extract(m.meta_json, '$.usage.inputTokens'), 0)) AS input,
      SUM(COALESCE(json_extract(m.meta_json, '$.usage.outputTokens'), 0)) AS output,
      SUM(COALESCE(json_extract(m.meta_json, '$.usage.costUsd'), 0)) AS cost,
      COUNT(*) AS turns
    FROM messages m JOIN sessions s ON s.id = m.session_id
    WHERE m.role = 'agent' AND m.created_at >= ? AND json_extract(m.meta_json, '$.usage') IS NOT NULL
    GROUP BY s.provider`)
    .all(since) as UsageRow[];
}
