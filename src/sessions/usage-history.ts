import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";

// Usage and cost over time (the page's chart): what the agents reported with their replies
// (`meta.usage`, SHAPES.md), summed per day in the relay's time zone and per provider, for
// the whole relay or one session.

export interface UsageDay {
  day: string;
  provider: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  turns: number;
}

export function usageByDay(db: Db, since: number, session?: string): UsageDay[] {
  const rows = sql(
    db,
    `SELECT date(m.created_at / 1000, 'unixepoch', 'localtime') AS day, s.provider AS provider,
      SUM(COALESCE(json_extract(m.meta_json, '$.usage.inputTokens'), 0)) AS input,
      SUM(COALESCE(json_extract(m.meta_json, '$.usage.outputTokens'), 0)) AS output,
      SUM(COALESCE(json_extract(m.meta_json, '$.usage.costUsd'), 0)) AS cost,
      COUNT(*) AS turns
    FROM messages m JOIN sessions s ON s.id = m.session_id
    WHERE m.role = 'agent' AND m.created_at >= @since AND (@session IS NULL OR m.session_id = @session)
      AND json_extract(m.meta_json, '$.usage') IS NOT NULL
    GROUP BY day, s.provider ORDER BY day`,
  ).all({ since, session: session ?? null }) as {
    day: string;
    provider: string;
    input: number;
    output: number;
    cost: number;
    turns: number;
  }[];
  return rows.map((r) => ({
    day: r.day,
    provider: r.provider,
    inputTokens: r.input,
    outputTokens: r.output,
    costUsd: Math.round(r.cost * 1e6) / 1e6,
    turns: r.turns,
  }));
}
