import { iso } from "../core/clock.ts";
import { newId } from "../core/ids.ts";
import { RelayError } from "../core/errors.ts";
import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";

// The 80 % notices (contract §10.4): at most one per budget and period, kept until the owner
// dismisses it. The Inbox shows those of the budgets' current periods (a notice about a day
// that is over says nothing any more).

/** An Inbox entry: `{ kind: "notice", budget, text, createdAt }` plus the id that dismisses it. */
export interface Notice {
  id: string;
  kind: "notice";
  budget: string;
  text: string;
  createdAt: string;
}

interface NoticeRow {
  id: string;
  budget_id: string;
  period_key: string;
  text: string;
  created_at: number;
}

const view = (r: NoticeRow): Notice => ({
  id: r.id,
  kind: "notice",
  budget: r.budget_id,
  text: r.text,
  createdAt: iso(r.created_at)!,
});

export class Notices {
  constructor(private db: Db) {}

  /** The notice, or null when this budget had one in this period already. */
  add(budgetId: string, periodKey: string, text: string, now: number): Notice | null {
    const id = newId("ntc");
    const r = sql(
      this.db,
      "INSERT OR IGNORE INTO budget_notices (id, budget_id, period_key, text, created_at) VALUES (?, ?, ?, ?, ?)",
    ).run(id, budgetId, periodKey, text, now);
    return r.changes ? { id, kind: "notice", budget: budgetId, text, createdAt: iso(now)! } : null;
  }

  /** Not dismissed, of the periods given (budget id → its current period key), oldest first;
   * each with its period key (its notification's key). */
  pending(current: Map<string, string>): { notice: Notice; period: string }[] {
    const one = sql(
      this.db,
      "SELECT * FROM budget_notices WHERE budget_id = ? AND period_key = ? AND dismissed_at IS NULL",
    );
    const rows = [...current].map(([budget, key]) => one.get(budget, key) as NoticeRow | undefined);
    return rows
      .filter((r): r is NoticeRow => !!r)
      .sort((a, b) => a.created_at - b.created_at)
      .map((r) => ({ notice: view(r), period: r.period_key }));
  }

  /** The notice's budget and period key (its notification's key). */
  dismiss(id: string, now: number): { budget: string; period: string } {
    const r = sql(this.db, "UPDATE budget_notices SET dismissed_at = COALESCE(dismissed_at, ?) WHERE id = ?").run(
      now,
      id,
    );
    if (!r.changes)
      throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No budget notice ${id.slice(0, 60)}. Nothing was dismissed.`);
    const row = sql(this.db, "SELECT budget_id, period_key FROM budget_notices WHERE id = ?").get(id) as NoticeRow;
    return { budget: row.budget_id, period: row.period_key };
  }
}
