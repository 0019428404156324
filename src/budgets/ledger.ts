import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";
import type { Periods } from "./periods.ts";

// The spend ledger (store/schema/budgets.ts): one row per turn's usage, one per reply a paired
// relay reported back, and running totals per scope, target and period kept in the same
// transaction. Totals read on the send path come from memory once read.

export type Source = "turn" | "remote";
export type Scope = "relay" | "provider" | "group" | "session";

export interface SpendRow {
  source: Source;
  ref: string;
  sessionId: string | null;
  provider: string | null;
  groupId: string | null;
  relay: string | null;
  model: string | null;
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
  priced: "reported" | "price_table" | "none";
  at: number;
}

export interface Total {
  micros: number;
  tokens: number;
}

/** The totals a row adds to: a turn here counts for the relay, its provider, its group and
 * its session; what a paired relay reported back counts for the sending session's group only
 * (that relay counts the turn itself; contract §10.4). */
export function targetsOf(r: Pick<SpendRow, "source" | "provider" | "groupId" | "sessionId">): [Scope, string][] {
  const out: [Scope, string][] = [];
  if (r.source === "turn") {
    out.push(["relay", ""]);
    if (r.provider) out.push(["provider", r.provider]);
  }
  if (r.groupId) out.push(["group", r.groupId]);
  if (r.source === "turn" && r.sessionId) out.push(["session", r.sessionId]);
  return out;
}

const periodKeys = (day: string) => [`d:${day}`, `m:${day.slice(0, 7)}`, "t"];
const cacheKey = (scope: string, target: string, periodKey: string) => `${scope}\u0000${target}\u0000${periodKey}`;

export class Ledger {
  private cache = new Map<string, Total>();

  constructor(
    private db: Db,
    private periods: Periods,
  ) {}

  /** Adds the row and its totals; false (and nothing changed) when (source, ref) was recorded
   * before. Its own transaction, never inside another: what is kept in memory and told to
   * others must be what is committed (Budgets checks). `also` writes what must be committed
   * with the row (a paired relay's outbox row of it), in the same transaction. */
  record(r: SpendRow, also?: () => void): boolean {
    const day = this.periods.dayOf(r.at);
    const tokens = r.inputTokens + r.outputTokens;
    const keys: [string, string, string][] = [];
    for (const [scope, target] of targetsOf(r)) for (const pk of periodKeys(day)) keys.push([scope, target, pk]);
    const added = this.db.transaction(() => {
      const ins = sql(
        this.db,
        `INSERT OR IGNORE INTO spend (source, ref, session_id, provider, group_id, relay, model, input_tokens, output_tokens, cost_micros, priced, day, at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        r.source,
        r.ref,
        r.sessionId,
        r.provider,
        r.groupId,
        r.relay,
        r.model,
        r.inputTokens,
        r.outputTokens,
        r.costMicros,
        r.priced,
        day,
        r.at,
      );
      if (!ins.changes) return false;
      const add = sql(
        this.db,
        `INSERT INTO spend_totals (scope, target, period_key, cost_micros, tokens) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (scope, target, period_key) DO UPDATE SET cost_micros = cost_micros + excluded.cost_micros, tokens = tokens + excluded.tokens`,
      );
      for (const [scope, target, pk] of keys) add.run(scope, target, pk, r.costMicros, tokens);
      also?.();
      return true;
    })();
    if (!added) return false;
    for (const [scope, target, pk] of keys) {
      const k = cacheKey(scope, target, pk);
      const t = this.cache.get(k);
      if (t) this.cache.set(k, { micros: t.micros + r.costMicros, tokens: t.tokens + tokens });
    }
    return true;
  }

  total(scope: Scope, target: string, periodKey: string): Total {
    const k = cacheKey(scope, target, periodKey);
    let t = this.cache.get(k);
    if (!t) {
      const row = sql(
        this.db,
        "SELECT cost_micros AS micros, tokens FROM spend_totals WHERE scope = ? AND target = ? AND period_key = ?",
      ).get(scope, target, periodKey) as Total | undefined;
      t = row ?? { micros: 0, tokens: 0 };
      // Past periods are never asked about again on the send path: forget them with the day.
      if (this.cache.size > 50_000) this.cache.clear();
      this.cache.set(k, t);
    }
    return t;
  }

  /** The day column and every total again, in the zone `periods` uses now (the relay's zone
   * changed since they were written). Walks the ledger in time order, so the few day
   * boundaries crossed are the only Temporal conversions. */
  rebuild(): void {
    const rows = sql(
      this.db,
      "SELECT id, source, provider, group_id, session_id, cost_micros, input_tokens + output_tokens AS tokens, at FROM spend ORDER BY at",
    ).all() as {
      id: number;
      source: Source;
      provider: string | null;
      group_id: string | null;
      session_id: string | null;
      cost_micros: number;
      tokens: number;
      at: number;
    }[];
    const totals = new Map<string, { scope: Scope; target: string; pk: string; micros: number; tokens: number }>();
    const setDay = sql(this.db, "UPDATE spend SET day = ? WHERE id = ?");
    this.db.transaction(() => {
      for (const r of rows) {
        const day = this.periods.dayOf(r.at);
        setDay.run(day, r.id);
        for (const [scope, target] of targetsOf({
          source: r.source,
          provider: r.provider,
          groupId: r.group_id,
          sessionId: r.session_id,
        })) {
          for (const pk of periodKeys(day)) {
            const k = cacheKey(scope, target, pk);
            const t = totals.get(k) ?? { scope, target, pk, micros: 0, tokens: 0 };
            t.micros += r.cost_micros;
            t.tokens += r.tokens;
            totals.set(k, t);
          }
        }
      }
      sql(this.db, "DELETE FROM spend_totals").run();
      const ins = sql(
        this.db,
        "INSERT INTO spend_totals (scope, target, period_key, cost_micros, tokens) VALUES (?, ?, ?, ?, ?)",
      );
      for (const t of totals.values()) ins.run(t.scope, t.target, t.pk, t.micros, t.tokens);
    })();
    this.cache.clear();
  }

  /** Spend per local day from `fromDay` to `toDay` (inclusive), per provider or per session,
   * of the turns run here. */
  perDay(
    fromDay: string,
    toDay: string,
    by: "provider" | "session",
  ): { day: string; key: string; micros: number; tokens: number }[] {
    const col = by === "provider" ? "provider" : "session_id";
    return sql(
      this.db,
      `SELECT day, ${col} AS key, SUM(cost_micros) AS micros, SUM(input_tokens + output_tokens) AS tokens
       FROM spend WHERE source = 'turn' AND day >= ? AND day <= ? AND ${col} IS NOT NULL GROUP BY day, ${col} ORDER BY day`,
    ).all(fromDay, toDay) as { day: string; key: string; micros: number; tokens: number }[];
  }
}
