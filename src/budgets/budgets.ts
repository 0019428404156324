import type { Clock } from "../core/clock.ts";
import { iso } from "../core/clock.ts";
import { RelayError } from "../core/errors.ts";
import { costUsd } from "../providers/prices.ts";
import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";
import { Ledger, targetsOf, type Scope, type SpendRow, type Total } from "./ledger.ts";
import { Notices, type Notice } from "./notices.ts";
import { Periods, systemZone } from "./periods.ts";
import { spendSeries, type SpendSeries } from "./spend-series.ts";
import type { Budget } from "../core/budget-schema.ts";
import { heldText, noticeText, type NameOf } from "./words.ts";

// Budgets (contract §10.4): spend caps over the turns run here (and, for a group, what its
// prompts to paired relays reported back) that hold the next turn and ask the owner, never
// cut a running one. This is the domain on its own: phase B's turn queue asks `check` before
// a turn starts, records each turn's usage at its end, and shows cards, notices and views.

export interface BudgetsDeps {
  db: Db;
  clock: Pick<Clock, "now">;
  /** The `budgets` setting: `get` returns the stored list itself (its identity tells a
   * change), `set` writes a new one (raise). */
  settings: { get(): readonly Budget[]; set(next: Budget[]): void };
  /** A session's provider and group as they are now (phase B: `sessions.get`), for
   * recording: a turn's spend stays with the group the session was in at its end. */
  sessionOf(id: string): SessionLike | undefined;
  /** The relay's time zone; the system's (`TZ`) when left out. */
  timeZone?: string;
  /** A new 80 % notice, once it is stored, and the period key it is kept under
   * (`d:YYYY-MM-DD`, `m:YYYY-MM`, `t`): the Inbox's event and the owner's notification. */
  onNotice?(n: Notice, period: string): void;
  /** The owner dismissed that budget's notice of that period: a notification of it not
   * sent yet (quiet hours) no longer needs to go. */
  onNoticeDismissed?(budget: string, period: string): void;
  /** Names for notice texts (a group's name, a session's title); ids otherwise. */
  nameOf?: NameOf;
}

/** The fields of a session row (sessions/types.ts `SessionRow`) budgets look at. */
export interface SessionLike {
  id: string;
  provider: string;
  group_id: string | null;
}

/** What a turn's agent reported (providers/activity.ts `Usage`). */
export interface ReportedUsage {
  inputTokens?: number;
  outputTokens?: number;
  cachedTokens?: number;
  costUsd?: number;
}

export interface Held {
  held: true;
  budget: string;
  spentUsd: number;
  limitUsd: number | null;
  spentTokens: number;
  limitTokens: number | null;
  /** When the budget's period ends and the hold with it (epoch ms; null for `total`): the
   * turn queue's one timer looks again then. */
  periodEnd: number | null;
}
export type Hold = { held: false } | Held;

export interface BudgetView {
  id: string;
  scope: Budget["scope"];
  target: string | null;
  period: Budget["period"];
  limitUsd: number | null;
  limitTokens: number | null;
  spentUsd: number;
  spentTokens: number;
  remainingUsd: number | null;
  heldTurns: number;
  /** When the period ends and spend starts from 0 again; null for `total`. */
  resetsAt: string | null;
}

const NOT_HELD: Hold = { held: false };
const NOTICE_AT = 0.8;
const ALLOWANCE_DAYS = 30;
const micros = (usd: number) => Math.round(usd * 1_000_000);
const key = (scope: string, target: string) => `${scope}\u0000${target}`;
const RELAY = key("relay", "");
const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);

export class Budgets {
  readonly periods: Periods;
  private ledger: Ledger;
  private notices: Notices;
  private allowed: Set<string>;
  private index = { list: null as readonly Budget[] | null, byTarget: new Map<string, Budget[]>() };

  constructor(private d: BudgetsDeps) {
    this.periods = new Periods(d.timeZone ?? systemZone());
    this.ledger = new Ledger(d.db, this.periods);
    this.notices = new Notices(d.db);
    this.followZone();
    const old = d.clock.now() - ALLOWANCE_DAYS * 86_400_000;
    sql(d.db, "DELETE FROM budget_allowances WHERE created_at < ?").run(old);
    const rows = sql(d.db, "SELECT turn_id FROM budget_allowances").all() as { turn_id: string }[];
    this.allowed = new Set(rows.map((r) => r.turn_id));
  }

  /** Before a turn of the session starts: held when a budget over it has reached its limit
   * (spent ≥ limit) in its current period, unless the owner let this turn run once. Takes the
   * session row the turn queue has in hand (its provider and group as they are now): the
   * send path reads no more than memory here. */
  check(session: SessionLike, turnId?: string): Hold {
    if (turnId !== undefined && this.allowed.has(turnId)) return NOT_HELD;
    const now = this.d.clock.now();
    for (const budgets of this.over(session.id, session.provider, session.group_id)) {
      if (!budgets) continue;
      for (const b of budgets) {
        const t = this.spent(b, now);
        if ((b.usd !== null && t.micros >= micros(b.usd)) || (b.tokens !== null && t.tokens >= b.tokens)) {
          const end = this.periods.span(b.period, now).end;
          return {
            held: true,
            budget: b.id,
            spentUsd: t.micros / 1e6,
            limitUsd: b.usd,
            spentTokens: t.tokens,
            limitTokens: b.tokens,
            periodEnd: Number.isFinite(end) ? end : null,
          };
        }
      }
    }
    return NOT_HELD;
  }

  /** A turn's usage at its end (counted once per turn, whatever calls this again). Cost is the
   * reported one, else tokens × the provider's listed price, else none (tokens still count). */
  recordTurn(t: {
    turnId: string;
    sessionId: string;
    usage: ReportedUsage;
    model?: string | null;
    provider?: string | null;
    /** Written in the ledger row's transaction when it is new (the spend row a paired
     * relay fetches): both or neither survive a crash. */
    also?: () => void;
  }): boolean {
    const s = this.d.sessionOf(t.sessionId);
    const provider = t.provider ?? s?.provider ?? null;
    const added = this.add(
      { source: "turn", ref: t.turnId, sessionId: t.sessionId, provider, groupId: s?.group_id ?? null, relay: null },
      t.usage,
      t.model ?? null,
      t.also,
    );
    if (this.allowed.delete(t.turnId)) sql(this.d.db, "DELETE FROM budget_allowances WHERE turn_id = ?").run(t.turnId);
    return added;
  }

  /** What a paired relay reported back for a prompt this session sent there (its reply's
   * usage): counts for the session's group. `remoteTurn` is that relay's turn id. */
  recordRemote(r: {
    relay: string;
    remoteTurn: string;
    sessionId: string;
    usage: ReportedUsage;
    provider?: string | null;
    model?: string | null;
  }): boolean {
    const s = this.d.sessionOf(r.sessionId);
    const ref = `${r.relay}/${r.remoteTurn}`;
    return this.add(
      {
        source: "remote",
        ref,
        sessionId: r.sessionId,
        provider: r.provider ?? null,
        groupId: s?.group_id ?? null,
        relay: r.relay,
      },
      r.usage,
      r.model ?? null,
    );
  }

  /** The card's `raise`: the budget's new limit(s), which must lie above what was spent. */
  raise(budgetId: string, limitUsd?: number | null, limitTokens?: number | null): BudgetView {
    const list = this.d.settings.get();
    const b = list.find((x) => x.id === budgetId);
    if (!b)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No budget "${String(budgetId).slice(0, 64)}". Nothing was changed.`,
      );
    const bad = (why: string) => new RelayError("REMOTE_RELAY_INVALID_INPUT", `${why}. Nothing was changed.`);
    if (limitUsd == null && limitTokens == null) throw bad("raise needs limitUsd, limitTokens or both");
    const t = this.spent(b, this.d.clock.now());
    if (limitUsd != null) {
      if (typeof limitUsd !== "number" || !Number.isFinite(limitUsd) || limitUsd <= 0 || limitUsd > 1e9)
        throw bad("limitUsd must be a number of dollars above 0");
      if (micros(limitUsd) <= t.micros)
        throw bad(`limitUsd must be more than the $${(t.micros / 1e6).toFixed(2)} already spent`);
    }
    if (limitTokens != null) {
      if (!Number.isSafeInteger(limitTokens) || limitTokens <= 0)
        throw bad("limitTokens must be a whole number above 0");
      if (limitTokens <= t.tokens) throw bad(`limitTokens must be more than the ${t.tokens} tokens already spent`);
    }
    const next = { ...b, usd: limitUsd ?? b.usd, tokens: limitTokens ?? b.tokens };
    this.d.settings.set(list.map((x) => (x.id === budgetId ? next : x)));
    return this.view(next, this.d.clock.now(), () => 0);
  }

  /** The card's `allow_once`: this one turn runs although a budget holds its session. */
  allowOnce(turnId: string): void {
    sql(this.d.db, "INSERT OR IGNORE INTO budget_allowances (turn_id, created_at) VALUES (?, ?)").run(
      turnId,
      this.d.clock.now(),
    );
    this.allowed.add(turnId);
  }

  /** Every budget as `usage` and `GET /api/usage` show it; `heldTurns` counts the turns the
   * queue holds for it (phase B knows them). */
  views(heldTurns: (budgetId: string) => number = () => 0): BudgetView[] {
    const now = this.d.clock.now();
    return this.d.settings.get().map((b) => this.view(b, now, heldTurns));
  }

  /** The words of a held turn, for the budget card and the agent's `note`. */
  holdText(h: Held): string {
    const b = this.d.settings.get().find((x) => x.id === h.budget);
    if (!b) return `Budget "${h.budget}" reached its limit: this turn waits for the owner.`;
    return heldText(b, h, this.d.nameOf);
  }

  /** The notices the Inbox shows: not dismissed, of each budget's current period. */
  pendingNotices(): Notice[] {
    return this.pendingWithPeriod().map((p) => p.notice);
  }

  /** The same, each with its period key (start-up's catch-up of their notifications). */
  pendingWithPeriod(): { notice: Notice; period: string }[] {
    const now = this.d.clock.now();
    return this.notices.pending(
      new Map(this.d.settings.get().map((b) => [b.id, this.periods.span(b.period, now).key])),
    );
  }

  dismissNotice(id: string): void {
    const n = this.notices.dismiss(id, this.d.clock.now());
    this.d.onNoticeDismissed?.(n.budget, n.period);
  }

  /** Looks at every budget for the 80 % notice: after the setting changed (a new budget, a
   * lower limit), when no new spend would make it look. */
  sweep(): Notice[] {
    return this.notify(this.d.settings.get());
  }

  /** Spend per local day over the last `days` days, per provider or per session, for the
   * page's chart. */
  spendOverTime(opts: { days?: number; by: "provider" | "session"; top?: number }): SpendSeries {
    return spendSeries(this.ledger, this.periods.dayOf(this.d.clock.now()), opts);
  }

  private add(
    who: Omit<SpendRow, "model" | "inputTokens" | "outputTokens" | "costMicros" | "priced" | "at">,
    u: ReportedUsage,
    model: string | null,
    also?: () => void,
  ): boolean {
    // The running totals in memory and the notices told to others must be committed ones:
    // record after the turn's end is in the store, as events go out after commit.
    if (this.d.db.inTransaction)
      throw new Error("budgets: record usage after the transaction that ended the turn has committed");
    const inputTokens = Math.round(num(u.inputTokens));
    const outputTokens = Math.round(num(u.outputTokens));
    const reported = typeof u.costUsd === "number" && Number.isFinite(u.costUsd) && u.costUsd >= 0;
    const listed =
      reported || !who.provider
        ? null
        : costUsd(who.provider, model, { inputTokens, outputTokens, cachedTokens: Math.round(num(u.cachedTokens)) });
    if (!reported && listed === null && !inputTokens && !outputTokens) return false;
    const row: SpendRow = {
      ...who,
      model,
      inputTokens,
      outputTokens,
      costMicros: reported ? micros(u.costUsd!) : listed !== null ? micros(listed) : 0,
      priced: reported ? "reported" : listed !== null ? "price_table" : "none",
      at: this.d.clock.now(),
    };
    if (!this.ledger.record(row, also)) return false;
    const touched = new Set(targetsOf(row).map(([scope, target]) => key(scope, target)));
    this.notify(this.d.settings.get().filter((b) => touched.has(key(b.scope, b.target ?? ""))));
    return true;
  }

  /** Stores the 80 % notice of each budget given that is at or past it (once per period). */
  private notify(budgets: readonly Budget[]): Notice[] {
    const now = this.d.clock.now();
    const out: { n: Notice; period: string }[] = [];
    for (const b of budgets) {
      const t = this.spent(b, now);
      const near =
        (b.usd !== null && t.micros >= micros(b.usd) * NOTICE_AT) ||
        (b.tokens !== null && t.tokens >= b.tokens * NOTICE_AT);
      if (!near) continue;
      const period = this.periods.span(b.period, now).key;
      const n = this.notices.add(b.id, period, noticeText(b, t.micros / 1e6, t.tokens, this.d.nameOf), now);
      if (n) out.push({ n, period });
    }
    for (const { n, period } of out) this.d.onNotice?.(n, period);
    return out.map((x) => x.n);
  }

  private spent(b: Budget, now: number): Total {
    return this.ledger.total(b.scope as Scope, b.target ?? "", this.periods.span(b.period, now).key);
  }

  private view(b: Budget, now: number, heldTurns: (id: string) => number): BudgetView {
    const t = this.spent(b, now);
    const end = this.periods.span(b.period, now).end;
    return {
      id: b.id,
      scope: b.scope,
      target: b.target,
      period: b.period,
      limitUsd: b.usd,
      limitTokens: b.tokens,
      spentUsd: t.micros / 1e6,
      spentTokens: t.tokens,
      remainingUsd: b.usd === null ? null : Math.max(0, micros(b.usd) - t.micros) / 1e6,
      heldTurns: heldTurns(b.id),
      resetsAt: Number.isFinite(end) ? iso(end) : null,
    };
  }

  /** The budgets over a session: the relay's, its provider's, its group's and its own, as
   * the lists of an index rebuilt when the setting changes. */
  private over(sessionId: string, provider: string, groupId: string | null): (Budget[] | undefined)[] {
    const list = this.d.settings.get();
    if (list !== this.index.list) {
      const byTarget = new Map<string, Budget[]>();
      for (const b of list) {
        const k = key(b.scope, b.target ?? "");
        const at = byTarget.get(k);
        if (at) at.push(b);
        else byTarget.set(k, [b]);
      }
      this.index = { list, byTarget };
    }
    const m = this.index.byTarget;
    return [
      m.get(RELAY),
      m.get(key("provider", provider)),
      groupId ? m.get(key("group", groupId)) : undefined,
      m.get(key("session", sessionId)),
    ];
  }

  /** The day column and totals follow the relay's zone: rebuilt once when it changed. */
  private followZone(): void {
    const row = sql(this.d.db, "SELECT value FROM budget_meta WHERE key = 'zone'").get() as
      | { value: string }
      | undefined;
    if (row?.value === this.periods.zone) return;
    if (row) this.ledger.rebuild();
    sql(
      this.d.db,
      "INSERT INTO budget_meta (key, value) VALUES ('zone', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ).run(this.periods.zone);
  }
}
