import type { Bus, BusEvent } from "../core/bus.ts";
import type { Clock } from "../core/clock.ts";
import type { SettingsStore } from "../core/settings.ts";
import { PROVIDER_IDS } from "../core/provider-ids.ts";
import type { Db } from "../store/db.ts";
import type { CardStore } from "../approvals/card-store.ts";
import { groupName, groupRow } from "../groups/groups.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import type { TargetCheck } from "../core/budget-schema.ts";
import { Budgets, type ReportedUsage } from "./budgets.ts";
import { BudgetHolds } from "./holds.ts";
import type { Notice } from "./notices.ts";

// Budgets wired into a relay (docs/budgets.md): the `budgets` setting read through
// parseBudgets with what its targets may name, the domain on the relay's store and clock,
// and the turn queue's gate. The composition root builds them once, before the turn queue,
// which gets the holds as its constructor argument.

/** What a budget's target may name: a built-in or custom provider, a live group, a session. */
export function budgetTargets(d: {
  db: Db;
  settings: Pick<SettingsStore, "get">;
  sessions: Pick<SessionStore, "get">;
}): TargetCheck {
  const isBuiltIn = new Set<string>(PROVIDER_IDS);
  return {
    isProvider: (id) => isBuiltIn.has(id) || d.settings.get().customAgents.some((a) => a.id === id),
    isGroup: (id) => !!groupRow(d, id),
    isSession: (id) => !!d.sessions.get(id),
  };
}

export interface BudgetsWiring {
  db: Db;
  clock: Clock;
  bus: Bus;
  settings: SettingsStore;
  sessions: Pick<SessionStore, "get" | "turn">;
  /** A turn run here for another relay's conversation (`fromSession`: its stand-in here)
   * reported spend: that relay is told (pairing's outbox), so the conversation's group budget
   * counts it also when nobody waits on the turn's answer (contract §10.4). */
  tellCaller?(fromSession: string, turn: { id: string; sessionId: string }, usage: ReportedUsage): void;
  /** The turn queue's, reached once it exists (it is built with the holds as its gate). */
  kick(sessionId: string): void;
  dropQueued(sessionId: string, onlyTurn?: string): void;
  cards: CardStore;
}

/** A notice as the bus tells it (`budget.notice`), with the session a session's budget names. */
export type NoticeEvent = Omit<Extract<BusEvent, { type: "budget.notice" }>, "type">;

export function buildBudgets(d: BudgetsWiring): {
  budgets: Budgets;
  holds: BudgetHolds;
  /** The Inbox's notices (not dismissed, current periods) as the bus told them. */
  pendingNotices(): NoticeEvent[];
} {
  const asEvent = (n: Notice, period: string): NoticeEvent => {
    const b = d.settings.get().budgets.find((x) => x.id === n.budget);
    const session = b?.scope === "session" ? (b.target ?? null) : null;
    return { budget: n.budget, noticeId: n.id, period, text: n.text, session };
  };
  const budgets = new Budgets({
    db: d.db,
    clock: d.clock,
    settings: { get: () => d.settings.get().budgets, set: (next) => d.settings.update({ budgets: next }) },
    sessionOf: (id) => d.sessions.get(id),
    onNotice: (n, period) => d.bus.emit({ type: "budget.notice", ...asEvent(n, period) }),
    onNoticeDismissed: (budget, period) => d.bus.emit({ type: "budget.notice.dismissed", budget, period }),
    nameOf: (scope, target) => {
      if (scope === "session") return d.sessions.get(target)?.title ?? null;
      if (scope !== "group") return null;
      const g = groupRow(d, target);
      return g ? groupName(d, g) : null;
    },
  });
  const holds = new BudgetHolds({
    budgets,
    cards: d.cards,
    bus: d.bus,
    clock: d.clock,
    kick: (id) => d.kick(id),
    stopQueued: (sessionId, turnId) => d.dropQueued(sessionId, turnId),
    counted: (turn, usage) => {
      const from = d.sessions.turn(turn.id)?.from_session;
      if (!from || !d.tellCaller) return;
      // Inside the ledger row's transaction: a failure here must not cost this relay its count.
      try {
        d.tellCaller(from, turn, usage);
      } catch (err) {
        console.error(`budgets: telling the calling relay of turn ${turn.id}'s spend failed:`, err);
      }
    },
  });
  return {
    budgets,
    holds,
    pendingNotices: () => budgets.pendingWithPeriod().map((p) => asEvent(p.notice, p.period)),
  };
}
