import { RelayError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { MINUTE } from "../core/clock.ts";
import { fromJson } from "../store/db.ts";
import type { Relay } from "../relay.ts";
import type { SessionRow } from "../sessions/types.ts";

// Approval cards (contract §5.3) and loop protection (§5.4). A card is raised in the
// calling conversation; the tool call waits for the owner's decision on the relay clock.

export const LOOP_ALLOWANCE = 30;

export interface CardRow {
  id: string;
  session_id: string;
  kind: string;
  action: string | null;
  relay: string | null;
  target_session: string | null;
  text: string;
  details_json: string;
  status: "pending" | "allowed" | "denied" | "expired";
  created_at: number;
  expires_at: number | null;
  decided_at: number | null;
}

/** What one gated call asks for. `once` names a first-time grant (per conversation and relay). */
export interface Gate {
  action: string;
  relay: string;
  write: boolean;
  target?: { id: string; title: string } | null;
  details?: string[];
  once?: "create_session" | "subscribe" | "update_other";
  always?: string;
  /** Prompts to other agents this call sends (loop protection). */
  prompts?: number;
  billing?: string;
}

export class Approvals {
  private waiting = new Map<string, (status: CardRow["status"]) => void>();

  constructor(private relay: Relay) {}

  private get db() {
    return this.relay.db;
  }

  get(id: string): CardRow | undefined {
    return this.db.prepare("SELECT * FROM cards WHERE id = ?").get(id) as CardRow | undefined;
  }

  pending(sessionId?: string): CardRow[] {
    return (sessionId
      ? this.db.prepare("SELECT * FROM cards WHERE status = 'pending' AND session_id = ? ORDER BY created_at").all(sessionId)
      : this.db.prepare("SELECT * FROM cards WHERE status = 'pending' ORDER BY created_at").all()) as CardRow[];
  }

  forSession(sessionId: string): CardRow[] {
    return this.db.prepare("SELECT * FROM cards WHERE session_id = ? ORDER BY created_at").all(sessionId) as CardRow[];
  }

  private grant(sessionId: string, kind: string, relay: string): number {
    const row = this.db.prepare("SELECT value FROM grants WHERE session_id = ? AND kind = ? AND relay = ?").get(sessionId, kind, relay) as { value: number } | undefined;
    return row?.value ?? 0;
  }

  private setGrant(sessionId: string, kind: string, relay: string, value: number): void {
    this.db.prepare(`INSERT INTO grants (session_id, kind, relay, value) VALUES (?, ?, ?, ?)
      ON CONFLICT(session_id, kind, relay) DO UPDATE SET value = excluded.value`).run(sessionId, kind, relay, value);
  }

  /** Prompts sent to other agents since the owner last spoke, and how many are allowed. */
  loopState(sessionId: string): { count: number; allowance: number } {
    return { count: this.grant(sessionId, "loop_count", "*"), allowance: LOOP_ALLOWANCE + this.grant(sessionId, "loop_extra", "*") };
  }

  /** The owner's own message resets the count (answers to questions do not). */
  resetLoop(sessionId: string): void {
    this.db.prepare("DELETE FROM grants WHERE session_id = ? AND kind IN ('loop_count', 'loop_extra')").run(sessionId);
  }

  countPrompts(sessionId: string, n: number): void {
    if (n > 0) this.setGrant(sessionId, "loop_count", "*", this.grant(sessionId, "loop_count", "*") + n);
  }

  /** Asks the owner when a rule says so; returns once allowed (or when nothing needs asking),
   * throws PERMISSION on Deny, APPROVAL_TIMEOUT past the wait limit, NO_ACTIVE_TURN when
   * the conversation has no turn to ask in. Counts the call's prompts once it may go on. */
  async require(caller: SessionRow, gate: Gate, signal?: AbortSignal): Promise<void> {
    const reasons: string[] = [];
    if (gate.always) reasons.push(gate.always);
    if (gate.write && caller.mode !== "agent") reasons.push(`the conversation is in ${caller.mode} mode`);
    if (gate.once && !this.grant(caller.id, gate.once, gate.relay)) {
      reasons.push(
        gate.once === "create_session" ? "first session this conversation starts"
        : gate.once === "subscribe" ? "first time this conversation watches sessions"
        : "a session this conversation did not start",
      );
    }
    const loop = this.loopState(caller.id);
    const prompts = gate.prompts ?? 0;
    const passesLoop = prompts > 0 && loop.count + prompts > loop.allowance;
    if (passesLoop) reasons.push(`loop protection: ${loop.count} prompts to other agents already sent from this conversation`);
    if (reasons.length) {
      await this.ask(caller, gate, reasons, signal);
      if (gate.once) this.setGrant(caller.id, gate.once, gate.relay, 1);
      if (passesLoop) this.setGrant(caller.id, "loop_extra", "*", this.grant(caller.id, "loop_extra", "*") + LOOP_ALLOWANCE);
    }
    this.countPrompts(caller.id, prompts);
  }

  private async ask(caller: SessionRow, gate: Gate, reasons: string[], signal?: AbortSignal): Promise<void> {
    const what = `${gate.action} on relay "${gate.relay}"${gate.target ? ` · session "${gate.target.title}" (${gate.target.id})` : ""}`;
    const running = this.relay.sessions.activeTurns(caller.id).some((t) => t.status === "running");
    if (!running) {
      throw new RelayError("REMOTE_RELAY_NO_ACTIVE_TURN", `${what} needs the owner's approval (${reasons.join("; ")}), but this conversation has no running turn to show a card in. Nothing was done.`);
    }
    const now = this.relay.clock.now();
    const timeoutMs = this.relay.settings.get().longestWaitMinutes * MINUTE;
    const details = [...(gate.details ?? []), ...(gate.billing ? [gate.billing] : [])];
    const text = `Allow ${what}?${details.length ? ` ${details.join(" · ")}` : ""} (asked because: ${reasons.join("; ")})`;
    const id = newId("card");
    this.db.prepare(`INSERT INTO cards (id, session_id, kind, action, relay, target_session, text, details_json, status, created_at, expires_at)
      VALUES (?, ?, 'approval', ?, ?, ?, ?, ?, 'pending', ?, ?)`).run(
      id, caller.id, gate.action, gate.relay, gate.target?.id ?? null, text, JSON.stringify({ details, reasons }), now, now + timeoutMs,
    );
    this.relay.bus.emit({ type: "card.created", sessionId: caller.id, cardId: id });
    const status = await new Promise<CardRow["status"]>((resolve) => {
      const ac = new AbortController();
      const done = (s: CardRow["status"]) => {
        this.waiting.delete(id);
        ac.abort();
        resolve(s);
      };
      this.waiting.set(id, done);
      signal?.addEventListener("abort", () => { this.expire(id); done("expired"); }, { once: true });
      this.relay.clock.until(now + timeoutMs, ac.signal).then(() => {
        if (this.waiting.has(id)) { this.expire(id); done("expired"); }
      });
    });
    if (status === "allowed") return;
    if (status === "denied") throw new RelayError("REMOTE_RELAY_PERMISSION", `The owner denied ${what}. Nothing was done.`);
    throw new RelayError("REMOTE_RELAY_APPROVAL_TIMEOUT", `The owner did not decide on ${what} within ${timeoutMs / MINUTE} minutes. Nothing was done.`);
  }

  private expire(id: string): void {
    const r = this.db.prepare("UPDATE cards SET status = 'expired', decided_at = ? WHERE id = ? AND status = 'pending'").run(this.relay.clock.now(), id);
    const card = this.get(id);
    if (r.changes && card) this.relay.bus.emit({ type: "card.decided", sessionId: card.session_id, cardId: id, status: "expired" });
  }

  decide(id: string, decision: "allow" | "deny"): CardRow {
    const card = this.get(id);
    if (!card) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No card ${id} on this relay. Nothing was decided.`);
    if (card.status !== "pending") throw new RelayError("REMOTE_RELAY_NOT_FOUND", `Card ${id} was already ${card.status}. Nothing was decided.`);
    const status = decision === "allow" ? "allowed" : "denied";
    this.db.prepare("UPDATE cards SET status = ?, decided_at = ? WHERE id = ? AND status = 'pending'").run(status, this.relay.clock.now(), id);
    this.relay.bus.emit({ type: "card.decided", sessionId: card.session_id, cardId: id, status });
    this.waiting.get(id)?.(status);
    return this.get(id)!;
  }

  /** A card pending when the relay died can no longer release its call: it expired. */
  recover(): void {
    this.db.prepare("UPDATE cards SET status = 'expired', decided_at = ? WHERE status = 'pending'").run(this.relay.clock.now());
  }
}

export function cardView(c: CardRow) {
  const d = fromJson<{ details?: string[]; reasons?: string[] }>(c.details_json, {});
  return {
    id: c.id,
    session: c.session_id,
    kind: c.kind,
    action: c.action,
    relay: c.relay,
    targetSession: c.target_session,
    text: c.text,
    details: d.details ?? [],
    reasons: d.reasons ?? [],
    status: c.status,
    createdAt: new Date(c.created_at).toISOString(),
    expiresAt: c.expires_at ? new Date(c.expires_at).toISOString() : null,
  };
}
