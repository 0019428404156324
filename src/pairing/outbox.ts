import type { Db } from "../store/db.ts";
import type { EventRow, NewEvent } from "../watching/types.ts";
import { HOUR, type Clock } from "../core/clock.ts";
import type { OutboxEvent, PeerUsage } from "./peer-protocol.ts";
import type { PairingStore } from "./store.ts";

// Events for watchers on paired relays (seed §9 "On paired relays"), kept here until the
// watcher's relay fetches them: written with the capture (same transaction as any other
// event row), numbered (`seq`, the resume cursor), removed once the other side has written
// them and asks for what follows. While the link is down at most 500 per subscription are
// kept, for 7 days. The same outbox carries the spend of turns run here for a remote caller
// (type `spend`, addSpend): its relay counts it for the caller's group budget even when
// nobody waits on the turn's answer.

export const KEEP_PER_SUB = 500;
export const KEEP_MS = 7 * 24 * HOUR;
/** An outbox row that is a turn's spend, not an event (its `line` holds the usage as JSON). */
export const SPEND = "spend";

/** An event as the watcher's relay receives it: what a capture writes, less the holding
 * state the watcher's own relay decides, plus its place in this outbox (peer-protocol.ts). */
export type { OutboxEvent };

/** A peer_outbox row (the columns it shares with watch_events) and the watcher's id there. */
type OutboxRow = Pick<
  EventRow,
  "seq" | "key" | "type" | "session_id" | "turn_id" | "line" | "urgent" | "subs_json" | "at"
> & { remote_session: string };

export interface OutboxDeps {
  db: Db;
  clock: Clock;
}

export class PeerOutbox {
  private waiters = new Map<string, Set<() => void>>();
  private added = 0;

  constructor(
    private d: OutboxDeps,
    private store: PairingStore,
  ) {}

  /** Writes one event for a remote watcher (inside the caller's transaction), into the outbox
   * of the pairing its stand-in came through (issue 18: not of every pairing under its name). */
  add(
    watcher: string,
    e: Pick<NewEvent, "key" | "type" | "sessionId" | "turnId" | "line" | "urgent" | "subs" | "at">,
  ): boolean {
    const rc = this.store.remoteCallerById(watcher);
    if (!rc || !this.store.clientById(rc.pairing)) return false;
    const db = this.d.db;
    const sub = e.subs[0] ?? null;
    const r = db
      .prepare(`INSERT OR IGNORE INTO peer_outbox (pairing, watcher, key, type, session_id, turn_id, line, urgent, subs_json, sub, at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(
        rc.pairing,
        watcher,
        e.key,
        e.type,
        e.sessionId,
        e.turnId,
        e.line,
        e.urgent ? 1 : 0,
        JSON.stringify(e.subs),
        sub,
        e.at,
      );
    if (!r.changes) return false;
    if (sub) {
      // The oldest beyond 500 for this subscription go (the link has been down a long time).
      db.prepare(`DELETE FROM peer_outbox WHERE watcher = ? AND sub = ? AND seq <= (
        SELECT seq FROM peer_outbox WHERE watcher = ? AND sub = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`).run(
        watcher,
        sub,
        watcher,
        sub,
        KEEP_PER_SUB,
      );
    }
    if (++this.added % 200 === 0) this.prune();
    const pairing = rc.pairing;
    queueMicrotask(() => this.wake(pairing));
    return true;
  }

  /** A turn run here for a remote caller (`watcher`: its stand-in) reported its spend: it
   * goes back to the caller's relay beside the call's answer, once per turn (that relay counts
   * the turn once, whichever way it came). False when the prompt did not come from a paired
   * relay's conversation. */
  addSpend(watcher: string, turn: { id: string; sessionId: string }, usage: PeerUsage, at: number): boolean {
    if (!this.store.remoteCallerById(watcher)) return false;
    return this.add(watcher, {
      key: `spend:${turn.id}`,
      type: SPEND,
      sessionId: turn.sessionId,
      turnId: turn.id,
      line: JSON.stringify(usage),
      urgent: false,
      subs: [],
      at,
    });
  }

  private prune(): void {
    this.d.db.prepare("DELETE FROM peer_outbox WHERE at < ?").run(this.d.clock.now() - KEEP_MS);
  }

  private wake(pairing: string): void {
    const set = this.waiters.get(pairing);
    if (!set) return;
    this.waiters.delete(pairing);
    for (const fn of set) fn();
  }

  /** `spend`: the reader asked for spend rows too (an older relay would take them for events). */
  private read(pairing: string, after: number, spend: boolean): OutboxEvent[] {
    const rows = this.d.db
      .prepare(`SELECT o.*, r.session_id AS remote_session FROM peer_outbox o JOIN remote_callers r ON r.id = o.watcher
      WHERE o.pairing = ? AND o.seq > ? AND (? OR o.type != '${SPEND}') ORDER BY o.seq LIMIT 500`)
      .all(pairing, after, spend ? 1 : 0) as OutboxRow[];
    return rows.map((r) =>
      r.type === SPEND
        ? spendOf(r)
        : {
            seq: r.seq,
            watcher: r.remote_session,
            key: r.key,
            type: r.type,
            sessionId: r.session_id,
            turnId: r.turn_id,
            line: r.line,
            urgent: !!r.urgent,
            subs: JSON.parse(r.subs_json) as string[],
            at: r.at,
          },
    );
  }

  /** The pairing's events after `after` (what it confirmed is removed), waiting up to `waitMs`
   * (real time: this is about the link) for the first one. */
  async take(
    pairing: string,
    after: number,
    waitMs: number,
    signal: AbortSignal,
    spend = false,
  ): Promise<{ events: OutboxEvent[] }> {
    this.d.db.prepare("DELETE FROM peer_outbox WHERE pairing = ? AND seq <= ?").run(pairing, after);
    this.prune();
    let events = this.read(pairing, after, spend);
    if (!events.length && waitMs > 0 && !signal.aborted) {
      const key = pairing;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          this.waiters.get(key)?.delete(done);
          resolve();
        };
        const timer = setTimeout(done, waitMs);
        signal.addEventListener("abort", done, { once: true });
        if (!this.waiters.has(key)) this.waiters.set(key, new Set());
        this.waiters.get(key)!.add(done);
      });
      if (!this.d.db.open) return { events: [] };
      events = this.read(pairing, after, spend);
    }
    return { events };
  }

  /** Events kept for that pairing go with it. */
  clear(pairing: string): void {
    this.d.db.prepare("DELETE FROM peer_outbox WHERE pairing = ?").run(pairing);
  }
}

function spendOf(r: OutboxRow): OutboxEvent {
  let usage: PeerUsage | undefined;
  try {
    usage = JSON.parse(r.line) as PeerUsage;
  } catch {}
  return {
    seq: r.seq,
    watcher: r.remote_session,
    key: r.key,
    type: SPEND,
    sessionId: r.session_id,
    turnId: r.turn_id,
    line: "",
    urgent: false,
    subs: [],
    at: r.at,
    usage,
  };
}
