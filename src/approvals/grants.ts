import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";

// What the owner already allowed a conversation, and its loop-protection count, kept in
// the `grants` table so both survive a restart (contract §1: cards and their decisions).
// A row is (conversation, kind, relay) → value:
//   create_session / subscribe  '*'    1 once the owner allowed the conversation's first one
//   update_other                relay  1 once allowed to change sessions it did not start there
//   loop_count                  '*'    prompts sent to other agents since the owner last spoke
//   loop_extra                  '*'    prompts the owner granted beyond the first 30

/** contract §5.4: prompts to other agents before a card asks the owner; each Allow adds as many. */
export const LOOP_ALLOWANCE = 30;

export type OnceGrant = "create_session" | "subscribe" | "update_other";

/** create_session and subscribe are asked once per conversation; update_other once per
 * conversation and relay (contract §5.3). */
export const grantRelay = (kind: OnceGrant, relay: string): string => (kind === "update_other" ? relay : "*");

export class Grants {
  constructor(private db: Db) {}

  private value(sessionId: string, kind: string, relay: string): number {
    const row = sql(this.db, "SELECT value FROM grants WHERE session_id = ? AND kind = ? AND relay = ?").get(
      sessionId,
      kind,
      relay,
    ) as { value: number } | undefined;
    return row?.value ?? 0;
  }

  private add(sessionId: string, kind: string, relay: string, n: number): void {
    sql(
      this.db,
      `INSERT INTO grants (session_id, kind, relay, value) VALUES (?, ?, ?, ?)
      ON CONFLICT(session_id, kind, relay) DO UPDATE SET value = value + excluded.value`,
    ).run(sessionId, kind, relay, n);
  }

  has(sessionId: string, kind: OnceGrant, relay: string): boolean {
    return this.value(sessionId, kind, grantRelay(kind, relay)) > 0;
  }

  allow(sessionId: string, kind: OnceGrant, relay: string): void {
    sql(
      this.db,
      `INSERT INTO grants (session_id, kind, relay, value) VALUES (?, ?, ?, 1)
      ON CONFLICT(session_id, kind, relay) DO UPDATE SET value = 1`,
    ).run(sessionId, kind, grantRelay(kind, relay));
  }

  /** Prompts sent to other agents since the owner last spoke, and how many may go without a card. */
  loop(sessionId: string): { count: number; allowance: number } {
    return {
      count: this.value(sessionId, "loop_count", "*"),
      allowance: LOOP_ALLOWANCE + this.value(sessionId, "loop_extra", "*"),
    };
  }

  /** Whether sending `n` more prompts would pass loop protection. */
  loopExceeded(sessionId: string, n: number): boolean {
    const l = this.loop(sessionId);
    return n > 0 && l.count + n > l.allowance;
  }

  countPrompts(sessionId: string, n: number): void {
    if (n > 0) this.add(sessionId, "loop_count", "*", n);
  }

  /** The owner's Allow on a loop card: 30 more. */
  extendLoop(sessionId: string): void {
    this.add(sessionId, "loop_extra", "*", LOOP_ALLOWANCE);
  }

  /** The owner's own message in the conversation starts the count again. */
  resetLoop(sessionId: string): void {
    sql(this.db, "DELETE FROM grants WHERE session_id = ? AND kind IN ('loop_count', 'loop_extra')").run(sessionId);
  }
}
