import { RelayError } from "../core/errors.ts";
import { MINUTE } from "../core/clock.ts";
import type { Bus } from "../core/bus.ts";
import type { Clock } from "../core/clock.ts";
import type { SettingsStore } from "../core/settings.ts";
import type { Db } from "../store/db.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import type { SessionRow } from "../sessions/types.ts";
import { CardStore, cardView, type CardRow, type CardStatus, type ExpiredBecause, type NewCard } from "./card-store.ts";
import { choosePermission } from "./permission-choice.ts";
import { Grants } from "./grants.ts";
import { describeCall, needFor, type Gate } from "./gate.ts";

export { cardView, type CardRow } from "./card-store.ts";
export { LOOP_ALLOWANCE } from "./grants.ts";
export type { Gate } from "./gate.ts";

// Approval cards (contract §5.3) and loop protection (§5.4). A card is raised in the
// calling conversation while its turn runs; the tool call waits for the owner's decision
// on the relay clock, at most Longest wait per tool call. Nothing the call would do
// happens before Allow: when the card expires (time, the turn ended, the relay restarted)
// the call is refused.

/** What approvals use: their tables, the one clock, the bus; Longest wait per tool call (a
 * setting) and the caller's running turn, which a card belongs to. */
export interface ApprovalsDeps {
  db: Db;
  clock: Pick<Clock, "now" | "at">;
  bus: Pick<Bus, "on" | "emit">;
  settings: Pick<SettingsStore, "get">;
  sessions: Pick<SessionStore, "activeTurns">;
}

interface Waiting {
  turnId: string;
  resolve: (status: Exclude<CardStatus, "pending">, because?: ExpiredBecause) => void;
}

export class Approvals {
  readonly cards: CardStore;
  readonly grants: Grants;
  private waiting = new Map<string, Waiting>();

  constructor(private d: ApprovalsDeps) {
    this.cards = new CardStore(d.db);
    this.grants = new Grants(d.db);
    // A card belongs to the turn that raised it: when that turn ends (stopped, killed, Max
    // turn duration) no call is left to release, so the card expires unanswered.
    d.bus.on((e) => {
      if (e.type !== "turn.ended") return;
      for (const [id, w] of [...this.waiting]) if (w.turnId === e.turnId) this.settle(id, "expired", "turn_ended");
    });
  }

  get(id: string): CardRow | undefined {
    return this.cards.get(id);
  }

  pending(sessionId?: string): CardRow[] {
    return this.cards.pending(sessionId);
  }

  /** The conversation's recent cards, decided ones included. */
  forSession(sessionId: string): CardRow[] {
    return this.cards.recent(sessionId);
  }

  loopState(sessionId: string): { count: number; allowance: number } {
    return this.grants.loop(sessionId);
  }

  countPrompts(sessionId: string, n: number): void {
    this.grants.countPrompts(sessionId, n);
  }

  /** The owner's own message resets the count (answers to questions do not). */
  resetLoop(sessionId: string): void {
    this.grants.resetLoop(sessionId);
  }

  /** Asks the owner when a rule says so and returns once the call may go on (at once when
   * nothing needs asking). Throws PERMISSION on Deny, APPROVAL_TIMEOUT when the card
   * expires, NO_ACTIVE_TURN when the conversation has no running turn to ask in. Counts the
   * call's prompts toward loop protection once it may go on. */
  async require(caller: SessionRow, gate: Gate, signal?: AbortSignal): Promise<void> {
    const need = needFor(caller, gate, this.grants);
    const prompts = gate.prompts ?? 0;
    if (need.reasons.length) {
      await this.ask(caller, gate, need.reasons, signal);
      this.d.db.transaction(() => {
        if (gate.once) this.grants.allow(caller.id, gate.once, gate.relay);
        // Re-checked: a parallel call's Allow may already have granted the next 30.
        if (need.loop && this.grants.loopExceeded(caller.id, prompts)) this.grants.extendLoop(caller.id);
        this.grants.countPrompts(caller.id, prompts);
      })();
      return;
    }
    this.grants.countPrompts(caller.id, prompts);
  }

  /** A card another relay asked for, on a call this conversation made there: shown here,
   * with that relay's reasons; returns on Allow, throws like require() otherwise. */
  confirm(caller: SessionRow, gate: Gate, reasons: string[], signal?: AbortSignal): Promise<void> {
    return this.ask(caller, gate, reasons, signal);
  }

  private async ask(caller: SessionRow, gate: Gate, reasons: string[], signal?: AbortSignal): Promise<void> {
    const what = describeCall(gate);
    const nothing = gate.nothing ?? "Nothing was done.";
    const turn = this.d.sessions.activeTurns(caller.id).find((t) => t.status === "running");
    if (!turn) {
      throw new RelayError(
        "REMOTE_RELAY_NO_ACTIVE_TURN",
        `${what} needs the owner's approval (${reasons.join("; ")}), but this conversation has no running turn to show the card in. ${nothing}`,
      );
    }
    if (signal?.aborted)
      throw new RelayError("REMOTE_RELAY_APPROVAL_TIMEOUT", `The call for ${what} was cancelled. ${nothing}`);
    const now = this.d.clock.now();
    const waitMinutes = this.d.settings.get().longestWaitMinutes;
    const details = [...(gate.details ?? []), ...(gate.billing ? [gate.billing] : [])];
    const { status, because, card } = await this.raise(
      {
        sessionId: caller.id,
        action: gate.action,
        relay: gate.relay,
        target: gate.target ?? null,
        text: `Allow ${what}?${details.length ? ` ${details.join(" · ")}` : ""} (asked because: ${reasons.join("; ")})`,
        details,
        reasons,
        turnId: turn.id,
        now,
        expiresAt: now + waitMinutes * MINUTE,
        detail: gate.detail,
      },
      signal,
    );
    if (status === "allowed") return;
    if (status === "denied") throw new RelayError("REMOTE_RELAY_PERMISSION", `The owner denied ${what}. ${nothing}`);
    const why =
      because === "turn_ended"
        ? "the turn that asked ended before the owner decided"
        : because === "cancelled"
          ? "the call was cancelled before the owner decided"
          : `the owner did not decide within ${waitMinutes} minutes (Longest wait per tool call)`;
    throw new RelayError(
      "REMOTE_RELAY_APPROVAL_TIMEOUT",
      `No approval for ${what}: ${why}, and the card expired. ${nothing}`,
      { card: card.id },
    );
  }

  /** Raises a card and waits for its end: a decision, its expiry on the relay clock, its
   * turn ending, or `signal`. Approval and permission cards both go through here. */
  async raise(
    c: NewCard,
    signal?: AbortSignal,
  ): Promise<{ status: Exclude<CardStatus, "pending">; because?: ExpiredBecause; card: CardRow }> {
    const card = this.cards.insert(c);
    this.d.bus.emit({ type: "card.created", sessionId: c.sessionId, cardId: card.id, card: cardView(card) });
    const { status, because } = await new Promise<{ status: Exclude<CardStatus, "pending">; because?: ExpiredBecause }>(
      (resolve) => {
        const onAbort = () => this.settle(card.id, "expired", "cancelled");
        const cancelTimer = this.d.clock.at(card.expires_at!, () => this.settle(card.id, "expired", "timeout"));
        this.waiting.set(card.id, {
          turnId: c.turnId,
          resolve: (s, b) => {
            this.waiting.delete(card.id);
            cancelTimer();
            signal?.removeEventListener("abort", onAbort);
            resolve({ status: s, because: b });
          },
        });
        signal?.addEventListener("abort", onAbort, { once: true });
        if (signal?.aborted) onAbort();
      },
    );
    return { status, because, card: this.cards.get(card.id)! };
  }

  /** Ends a pending card once: stores it, tells the stream, releases the waiting call. */
  private settle(
    id: string,
    status: Exclude<CardStatus, "pending">,
    because?: ExpiredBecause,
    optionId?: string,
  ): boolean {
    if (!this.cards.settle(id, status, this.d.clock.now(), because, optionId)) return false;
    const card = this.cards.get(id)!;
    this.d.bus.emit({ type: "card.decided", sessionId: card.session_id, cardId: id, status, card: cardView(card) });
    this.waiting.get(id)?.resolve(status, because);
    return true;
  }

  /** The owner's Allow or Deny (POST /api/cards/:id). */
  decide(id: string, decision: "allow" | "deny" | { optionId: string }): CardRow {
    const card = this.cards.get(id);
    if (!card)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No approval card ${id.slice(0, 80)} on this relay. Nothing was decided.`,
      );
    const gone = () =>
      new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `Card ${id} is no longer pending (${this.cards.get(id)?.status ?? card.status}). Nothing was decided.`,
      );
    // Said first, whatever the answer's form: a decided or expired card takes none.
    if (card.status !== "pending") throw gone();
    // A budget card is decided by budgets (raise / allow_once / stop): settled here, its
    // held turn would wait with nobody asked.
    if (card.kind === "budget")
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `Card ${id} is a budget card: decide it with optionId "raise" (with limitUsd or limitTokens), "allow_once" or "stop". Nothing was decided.`,
      );
    // A permission card answers with one of the CLI's options (permission-choice.ts).
    const choice = card.kind === "permission" ? choosePermission(card, decision) : null;
    if (typeof decision === "object" && !choice) {
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `Card ${id} is not a permission card: decide it with "allow" or "deny". Nothing was decided.`,
      );
    }
    const status = choice ? choice.status : decision === "allow" ? "allowed" : "denied";
    if (!this.settle(id, status, undefined, choice?.optionId)) throw gone();
    return this.cards.get(id)!;
  }

  /** At start-up: a card pending when the relay died can no longer release its call (its
   * turn ended with the relay), so it shows as expired and nothing it asked for happens. */
  recover(): void {
    this.cards.expireAll(this.d.clock.now());
  }
}
