import { z } from "zod";
import type { Bus } from "../core/bus.ts";
import type { Clock } from "../core/clock.ts";
import { DueTimer } from "../core/due-timer.ts";
import { RelayError } from "../core/errors.ts";
import { fromJson } from "../store/db.ts";
import { cardView, type CardRow, type CardStore } from "../approvals/card-store.ts";
import type { SessionRow, TurnRow } from "../sessions/types.ts";
import type { TurnGate } from "../sessions/turns.ts";
import type { BudgetView, Budgets, Held, ReportedUsage } from "./budgets.ts";
import type { Notice } from "./notices.ts";
import type { SpendSeries } from "./spend-series.ts";

// Budgets on the turn queue (contract §10.4): the gate Turns asks before a queued turn starts,
// the `budget` card of a held turn (raise / allow once / stop), and each turn's spend recorded
// once its end is committed. A held turn stays `queued` in the store: nothing is failed or
// lost, and a restart holds it again from the stored totals (its card stays pending).

export interface BudgetHoldsDeps {
  budgets: Budgets;
  cards: Pick<CardStore, "insert" | "get" | "settle" | "pending">;
  bus: Pick<Bus, "on" | "emit">;
  clock: Pick<Clock, "now" | "at">;
  /** Starts the session's next queued turn unless something holds it (Turns.kick). */
  kick(sessionId: string): void;
  /** Ends one queued turn as stopped, its reply empty (Turns.dropQueued). */
  stopQueued(sessionId: string, turnId: string): void;
  /** A turn's spend is being counted here (once per turn): runs inside the ledger row's
   * transaction, so what it writes is committed with it. */
  counted?(turn: { id: string; sessionId: string }, usage: ReportedUsage): void;
}

/** What a waiting agent reads (relay_tool `send`/`wait`: `heldForBudget`). */
export interface HeldForBudget {
  budget: string;
  spentUsd: number;
  limitUsd: number | null;
  spentTokens?: number;
  limitTokens?: number | null;
}

export const BUDGET_OPTIONS = [
  { id: "raise", name: "Raise limit" },
  { id: "allow_once", name: "Allow once" },
  { id: "stop", name: "Stop" },
] as const;
type OptionId = (typeof BUDGET_OPTIONS)[number]["id"];

/** What the action path and the owner API use of budgets: views, a held turn's answer, a
 * paired relay's reported spend, the budget card, the Inbox notices, the chart. */
export type BudgetsPort = Pick<
  BudgetHolds,
  "views" | "heldFor" | "recordRemote" | "decide" | "pendingNotices" | "dismissNotice" | "spendOverTime"
>;

const Decision = z.strictObject({
  optionId: z.string().max(200),
  limitUsd: z.number().nullish(),
  limitTokens: z.number().nullish(),
});

const roundUsd = (n: number) => Math.round(n * 1e6) / 1e6;

export class BudgetHolds implements TurnGate {
  /** Turn id → what holds it: recomputed on every kick, so a restart starts empty. */
  private holding = new Map<string, { sessionId: string; hold: Held }>();
  /** Turn id → its pending budget card (the stored ones, after a restart too). */
  private cardOf = new Map<string, string>();
  private timer: DueTimer;

  constructor(private d: BudgetHoldsDeps) {
    this.timer = new DueTimer(d.clock, () => this.releaseAll());
    for (const c of d.cards.pending()) if (c.kind === "budget") this.cardOf.set(turnOf(c), c.id);
    d.bus.on((e) => {
      if (e.type === "turn.started") this.gone(e.turnId, "released");
      else if (e.type === "turn.ended") this.gone(e.turnId, "turn_ended");
      else if (e.type === "settings.updated") {
        // A limit raised, lowered or a budget removed: the 80 % notices and the held turns
        // are looked at again.
        d.budgets.sweep();
        this.releaseAll();
      }
    });
  }

  holds(session: SessionRow, turn: TurnRow): boolean {
    const h = this.d.budgets.check(session, turn.id);
    if (!h.held) {
      this.holding.delete(turn.id);
      return false;
    }
    this.holding.set(turn.id, { sessionId: session.id, hold: h });
    return true;
  }

  /** Raises the card of each newly held turn (once per turn, across kicks and restarts) and
   * wakes when the earliest of their periods ends. */
  held(turns: TurnRow[]): void {
    for (const t of turns) {
      const h = this.holding.get(t.id);
      if (!h || this.cardOf.has(t.id)) continue;
      const now = this.d.clock.now();
      const card = this.d.cards.insert({
        sessionId: t.session_id,
        kind: "budget",
        action: "budget",
        relay: "this",
        target: null,
        text: this.d.budgets.holdText(h.hold),
        details: [],
        reasons: [],
        turnId: t.id,
        now,
        expiresAt: null,
        options: BUDGET_OPTIONS.map((o) => ({ ...o })),
        extra: { budget: h.hold.budget },
      });
      this.cardOf.set(t.id, card.id);
      this.d.bus.emit({ type: "card.created", sessionId: t.session_id, cardId: card.id, card: cardView(card) });
      this.d.bus.emit({ type: "session.updated", sessionId: t.session_id });
    }
    this.arm();
  }

  ended(t: { id: string; sessionId: string; model: string | null; meta: Record<string, unknown> | undefined }): void {
    // Every ending is recorded (a turn without usage counts nothing, but uses up its allow once).
    const u = t.meta?.usage;
    const usage = u && typeof u === "object" && !Array.isArray(u) ? (u as ReportedUsage) : {};
    const counted = this.d.counted;
    this.d.budgets.recordTurn({
      turnId: t.id,
      sessionId: t.sessionId,
      usage,
      model: t.model,
      also: counted && (() => counted({ id: t.id, sessionId: t.sessionId }, usage)),
    });
  }

  /** `heldForBudget` of a queued turn a budget holds now; undefined when none does. */
  heldFor(turnId: string): (HeldForBudget & { note: string }) | undefined {
    const x = this.holding.get(turnId);
    if (!x) return undefined;
    const h = x.hold;
    return {
      budget: h.budget,
      spentUsd: roundUsd(h.spentUsd),
      limitUsd: h.limitUsd,
      ...(h.limitTokens !== null ? { spentTokens: h.spentTokens, limitTokens: h.limitTokens } : {}),
      note: `${this.d.budgets.holdText(h)} The owner was asked (a budget card); tell them if it is urgent.`,
    };
  }

  /** Every budget with its spend and the turns it holds now (relay_tool `usage`, GET /api/usage). */
  views(): BudgetView[] {
    return this.d.budgets.views((id) => this.heldTurns(id));
  }

  /** What a paired relay reported back for a prompt a session here sent (its group's spend). */
  recordRemote(r: Parameters<Budgets["recordRemote"]>[0]): boolean {
    return this.d.budgets.recordRemote(r);
  }

  /** The Inbox's 80 % notices (GET /api/inbox `notices`). */
  pendingNotices(): Notice[] {
    return this.d.budgets.pendingNotices();
  }

  dismissNotice(id: string): void {
    this.d.budgets.dismissNotice(id);
  }

  /** Spend per local day, for the page's chart (GET /api/usage?days=&by=). */
  spendOverTime(opts: Parameters<Budgets["spendOverTime"]>[0]): SpendSeries {
    return this.d.budgets.spendOverTime(opts);
  }

  /** How many queued turns each budget holds now (usage's `heldTurns`). */
  heldTurns(budgetId: string): number {
    let n = 0;
    for (const x of this.holding.values()) if (x.hold.budget === budgetId) n++;
    return n;
  }

  /** The owner's answer on a budget card (POST /api/cards/:id). */
  decide(cardId: string, input: unknown): CardRow {
    const parsed = Decision.safeParse(input);
    if (!parsed.success) {
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `A budget card takes { optionId: "raise" | "allow_once" | "stop", limitUsd?, limitTokens? } (numbers; with raise only). Nothing was decided.`,
      );
    }
    const body = parsed.data;
    const card = this.d.cards.get(cardId);
    if (card?.kind !== "budget")
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No budget card ${String(cardId).slice(0, 80)} on this relay. Nothing was decided.`,
      );
    if (card.status !== "pending")
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `Card ${card.id} is no longer pending (${card.status}). Nothing was decided.`,
      );
    const option = BUDGET_OPTIONS.find((o) => o.id === body.optionId)?.id as OptionId | undefined;
    if (!option) {
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `Card ${card.id} has no option '${String(body.optionId).slice(0, 80)}'. Options: ${BUDGET_OPTIONS.map((o) => `${o.id} (${o.name})`).join(", ")}. Nothing was decided.`,
      );
    }
    if (option !== "raise" && (body.limitUsd != null || body.limitTokens != null)) {
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `limitUsd and limitTokens go with optionId "raise" only. Nothing was decided.`,
      );
    }
    const turnId = turnOf(card);
    const budget = fromJson<{ budget?: string }>(card.details_json, {}).budget ?? "";
    if (option === "raise") {
      // Refused (not found, not above what was spent) before anything changes.
      this.d.budgets.raise(budget, body.limitUsd, body.limitTokens);
      this.settle(card, "allowed", undefined, option);
      // The setting changed: every turn it held is looked at again (the listener above).
      this.d.bus.emit({ type: "settings.updated" });
    } else if (option === "allow_once") {
      this.d.budgets.allowOnce(turnId);
      this.settle(card, "allowed", undefined, option);
      this.d.kick(card.session_id);
    } else {
      this.settle(card, "denied", undefined, option);
      this.holding.delete(turnId);
      this.d.stopQueued(card.session_id, turnId);
      // The turns behind it come next (and may be held in their turn).
      this.d.kick(card.session_id);
    }
    return this.d.cards.get(card.id)!;
  }

  /** Every session with a held turn is kicked: whatever no longer holds releases it. */
  releaseAll(): void {
    const sessions = new Set([...this.holding.values()].map((x) => x.sessionId));
    for (const s of sessions) this.d.kick(s);
    this.arm();
  }

  private arm(): void {
    let at = Infinity;
    for (const x of this.holding.values())
      if (x.hold.periodEnd !== null && x.hold.periodEnd < at) at = x.hold.periodEnd;
    this.timer.arm(at);
  }

  /** The held turn started (a raise, the period's end) or ended (stop, archive): its card,
   * if still pending, is settled as expired. */
  private gone(turnId: string, because: "released" | "turn_ended"): void {
    this.holding.delete(turnId);
    const cardId = this.cardOf.get(turnId);
    if (!cardId) return;
    this.cardOf.delete(turnId);
    const card = this.d.cards.get(cardId);
    if (card?.status === "pending") this.settle(card, "expired", because);
  }

  private settle(
    card: CardRow,
    status: "allowed" | "denied" | "expired",
    because?: "released" | "turn_ended",
    optionId?: string,
  ): void {
    if (!this.d.cards.settle(card.id, status, this.d.clock.now(), because, optionId)) return;
    this.d.bus.emit({
      type: "card.decided",
      sessionId: card.session_id,
      cardId: card.id,
      status,
      card: cardView(this.d.cards.get(card.id)!),
    });
    this.d.bus.emit({ type: "session.updated", sessionId: card.session_id });
  }
}

const turnOf = (c: CardRow): string => fromJson<{ turnId?: string }>(c.details_json, {}).turnId ?? "";
