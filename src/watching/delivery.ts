// Delivery of relay events to a watching conversation (seed §9 "How events arrive",
// contract §4.6). The public entry for other domains is `deliverUrgent` below.
//
// Each watcher has an outbox in the store: `ready` events and `window_due_at`, when they
// must go out (the 30-second gathering window's close; at once for urgent events and for
// events a digest or quiet hours release). `held` events wait for their `release_at`.
// One clock timer per watcher wakes at the earliest of these. Writing the message
// (a turn of the watcher, role `event`) and marking its events sent is one transaction:
// a SIGKILL either happened before (start-up delivers it) or after (it is not sent again).
import type { Cancel, Clock } from "../core/clock.ts";
import type { Db } from "../store/db.ts";
import type { Turns } from "../sessions/turns.ts";
import type { LiveSessions } from "../sessions/live-sessions.ts";
import type { InTurn } from "../sessions/in-turn.ts";
import { newId } from "../core/ids.ts";
import { HOUR } from "../core/clock.ts";
import type { SubscriptionStore } from "./subscriptions.ts";
import { composeMessage, type SubInfo } from "./event-lines.ts";
import { CAP_DIGEST_MS, WAKE_CAP, type Due, type EventRow, type NewEvent } from "./types.ts";
import { fromJson } from "../store/db.ts";
import type { QuietHours } from "./quiet-hours.ts";
import type { WriteBehind } from "./write-behind.ts";
import { outboxStatements, type OutboxStatements } from "./outbox-sql.ts";
import { safely } from "./later.ts";

/** An urgent relay event for one conversation, needing no subscription (e.g. seed §11's
 * `question_answered` for the asking conversation). */
export interface UrgentEvent {
  /** Event name as the line shows it: "question_answered" (or "question_asked", "error"). */
  type: string;
  /** The event line after "[relay event] ", e.g.
   * `question_answered ask_7d2…: "Wait" (choice; via desk)`. A leading "[relay event] " is kept as is. */
  text: string;
  /** Exactly-once key: the same key for the same watcher is delivered once, even when
   * called again (e.g. after a restart). For an answer use `question_answered:<question id>`: a
   * subscription that receives the same answer then does not deliver it a second time. */
  key?: string;
  /** The session the event is about, when there is one. */
  sessionId?: string | null;
}

/**
 * watching.deliverUrgent(watcherSessionId, { type: "question_answered", text, key })
 *
 * Urgent: no digest, quiet hours or wake-up cap holds it; an open gathering window goes out
 * with it. A watcher in a turn gets it (in one message with anything else due) when that
 * turn ends. The event row is written synchronously: call it inside your own
 * `db.transaction(...)` and the event commits (or rolls back) with your change;
 * the message itself is written right after, from the store, so a SIGKILL in between
 * delivers it at the next start, once.
 */
export interface DeliveryApi {
  deliverUrgent(watcherSessionId: string, event: UrgentEvent): void;
}

/** Where the events of a watcher on a paired relay go: that relay fetches them
 * (pairing/outbox.ts) and applies digests and quiet hours there. */
export interface RemoteOutbox {
  add(watcher: string, e: NewEvent): boolean;
}

export interface DeliveryDeps {
  db: Db;
  clock: Clock;
  turns: Pick<Turns, "enqueue">;
  remoteOutbox: RemoteOutbox;
  /** Lean reads of the watcher's session and turns (sessions/). */
  live: Pick<LiveSessions, "isLive">;
  inTurn: Pick<InTurn, "inTurn">;
}

export class Delivery implements DeliveryApi {
  private armed = new Map<string, { at: number; cancel: Cancel }>();
  private q: OutboxStatements;
  private tx: (fn: () => void) => void;
  /** Seen by the bench: due time and the moment each message was written. */
  onWritten?: (
    watcher: string,
    dueAt: number,
    writtenAt: number,
    events: number,
    kind: "window" | "digest" | "quiet",
  ) => void;
  private written = 0;

  constructor(
    private d: DeliveryDeps,
    private subs: SubscriptionStore,
    private wb: WriteBehind,
  ) {
    const db = d.db;
    const t = db.transaction((fn: () => void) => fn());
    this.tx = (fn) => t(fn);
    this.q = outboxStatements(db);
  }

  deliverUrgent(watcher: string, e: UrgentEvent): void {
    this.add(watcher, {
      key: e.key ?? `urgent:${newId("evt")}`,
      type: e.type,
      sessionId: e.sessionId ?? null,
      turnId: null,
      line: e.text,
      urgent: true,
      subs: [],
      at: this.d.clock.now(),
      state: "ready",
      hold: null,
      holdSub: null,
      releaseAt: null,
      echo: false,
      keep: true,
    });
    // After the caller's transaction (if any) has committed.
    queueMicrotask(safely("delivering an urgent event", () => this.run(watcher)));
  }

  private seq = -1;

  /** The order events happened in on this relay, which is the order they go out in: taken
   * when an event is captured, kept across restarts (the store's highest). Not the clock's
   * time: the manual clock stands still, may be set back, and starts again at the real time
   * after a restart, before what it had recorded. */
  nextSeq(): number {
    if (this.seq < 0) this.seq = (this.q.maxSeq.get() as { n: number | null }).n ?? 0;
    return ++this.seq;
  }

  /** Writes one event for a watcher (inside the caller's transaction). False when this
   * watcher already has it: the same thing happening is delivered once. */
  add(watcher: string, e: NewEvent): boolean {
    // A watcher on a paired relay: its relay fetches the event and applies digests and quiet hours there.
    if (watcher.startsWith("rmt_")) return this.d.remoteOutbox.add(watcher, e);
    const r = this.q.insert.run({
      watcher,
      key: e.key,
      seq: e.seq ?? this.nextSeq(),
      type: e.type,
      sessionId: e.sessionId,
      turnId: e.turnId,
      line: e.line,
      urgent: e.urgent ? 1 : 0,
      subs: JSON.stringify(e.subs),
      at: e.at,
      state: e.state,
      hold: e.hold,
      holdSub: e.holdSub,
      releaseAt: e.releaseAt,
      echo: e.echo ? 1 : 0,
      keep: e.keep ? 1 : 0,
    });
    if (!r.changes) return false;
    this.known.add(watcher);
    if (e.state === "ready") this.q.openWindow.run(watcher, e.urgent ? e.at : e.at + this.gatherMs);
    return true;
  }

  gatherMs = 30_000;

  /** Releases what fell due, writes the message when it is due and the watcher is free,
   * and re-arms the watcher's timer. Called by its timer, when its turn ends, after events. */
  run(watcher: string): void {
    if (!this.d.db.open) return;
    this.wb.flush();
    const now = this.d.clock.now();
    if (!this.d.live.isLive(watcher)) {
      this.dropAll(watcher);
      return;
    }
    const due = this.q.dueHeld.all(watcher, now) as Due[];
    const w = this.q.watcher.get(watcher) as { window_due_at: number | null; cap_anchor_at: number | null } | undefined;
    let dueAt = w?.window_due_at ?? Infinity;
    for (const d of due) dueAt = Math.min(dueAt, d.at);
    if (dueAt <= now && !this.inTurn(watcher)) {
      // Released and sent in one step: the rows are written once.
      this.flush(watcher, now, dueAt, w?.cap_anchor_at ?? null, due);
    } else if (due.length) {
      this.tx(() => {
        this.q.releaseAll.run(watcher, now);
        this.released(due);
        this.q.openWindow.run(watcher, dueAt);
      });
    }
    this.schedule(watcher);
  }

  /** Held events whose time came go out now (a digest does not wait another 30 s); the
   * next digest counts from this one, and a digest moved to the end of quiet hours from there. */
  private released(due: Due[]): void {
    for (const d of due) {
      if (!d.hold_sub || d.capped) continue;
      if (d.hold === "digest" || (d.hold === "quiet" && this.subRow(d.hold_sub)?.digest_minutes))
        this.subs.setDigestAnchor(d.hold_sub, d.at);
    }
  }

  private dueNow = new Set<string>();

  /** Timers that fire together (windows closing at the same instant, the end of a shared
   * quiet window) write their messages in one transaction: one commit instead of many. */
  private runSoon(watcher: string): void {
    this.dueNow.add(watcher);
    if (this.dueNow.size > 1) return;
    queueMicrotask(
      safely("writing due messages", () => {
        const list = [...this.dueNow];
        this.dueNow.clear();
        this.wb.flush();
        this.batching = true;
        try {
          this.tx(() => {
            // One watcher failing (its own savepoint rolls back) does not hold up the others.
            for (const w of list) safely(`delivering to ${w}`, () => this.run(w))();
          });
        } finally {
          this.batching = false;
        }
        this.committed();
      }),
    );
  }

  private flush(watcher: string, now: number, dueAt: number, capAnchor: number | null, due: Due[]): void {
    this.tx(() => {
      this.released(due);
      const events = this.q.ready.all(watcher, now) as EventRow[];
      if (!events.length) {
        this.q.clearWindow.run(watcher);
        return;
      }
      const capDigest = events.some((e) => e.capped);
      const urgent = events.some((e) => e.urgent);
      if (!capDigest && !urgent && this.wakeups(watcher, now) >= WAKE_CAP) {
        // Past 20 wake-ups in the sliding hour: the rest go out as a digest every 10 minutes.
        const held = (this.q.capHeld.get(watcher) as { at: number | null }).at;
        this.q.cap.run(held ?? this.nextCapDigest(capAnchor, now), watcher, now);
        this.q.clearWindow.run(watcher);
        return;
      }
      const info = new Map<string, SubInfo | undefined>();
      const text = composeMessage(events, (id) =>
        info.has(id) ? info.get(id) : info.set(id, this.subInfo(id)).get(id),
      );
      const { messageId } = this.d.turns.enqueue({ sessionId: watcher, role: "event", text });
      this.q.sent.run(messageId, now, watcher, now);
      this.q.clearWindow.run(watcher);
      this.q.wake.run(watcher, now);
      this.q.pruneWakeups.run(watcher, now - HOUR);
      if (capDigest) this.q.capAnchor.run(now, watcher);
      if (++this.written % 500 === 0) this.q.prune.run(now - 24 * HOUR);
      if (this.onWritten) {
        const kind = events.some((e) => e.hold === "quiet")
          ? "quiet"
          : events.some((e) => e.hold === "digest" || e.capped)
            ? "digest"
            : "window";
        this.afterCommit.push(() => this.onWritten!(watcher, dueAt, this.d.clock.now(), events.length, kind));
      }
    });
    if (!this.batching) this.committed();
  }

  /** Seen by the bench, once the message is committed. */
  private afterCommit: (() => void)[] = [];
  private batching = false;

  private committed(): void {
    const list = this.afterCommit;
    this.afterCommit = [];
    for (const fn of list) fn();
  }

  private nextCapDigest(anchor: number | null, now: number): number {
    if (anchor == null) return now + CAP_DIGEST_MS;
    return anchor + Math.max(1, Math.ceil((now - anchor) / CAP_DIGEST_MS)) * CAP_DIGEST_MS;
  }

  wakeups(watcher: string, now: number): number {
    return (this.q.wakeups.get(watcher, now - HOUR, now) as { n: number }).n;
  }

  /** Active subscriptions from memory; ended ones (a `once` still holding) from the store. */
  private subRow(id: string) {
    return this.subs.active(id)?.row ?? this.subs.get(id);
  }

  private subInfo(id: string): SubInfo | undefined {
    const row = this.subRow(id);
    return row
      ? { digestMinutes: row.digest_minutes, quiet: fromJson<QuietHours | null>(row.quiet_json, null) }
      : undefined;
  }

  /** A watcher with a queued or running turn gets its message when the turn ends. */
  private inTurn(watcher: string): boolean {
    return this.d.inTurn.inTurn(watcher);
  }

  /** Conversations that have had an event: only their turn ends can release a message. */
  private known = new Set<string>();

  /** Whether a turn end of this session may have a message to release (no store read for
   * the many sessions that watch nothing). */
  isWatcher(watcher: string): boolean {
    return this.known.has(watcher);
  }

  noteWatcher(watcher: string): void {
    this.known.add(watcher);
  }

  /** Something new is due for the watcher by `at`: its timer is brought forward if needed
   * (the cheap path for every captured event; `run` re-arms exactly). */
  dueBy(watcher: string, at: number): void {
    if (at === Infinity || watcher.startsWith("rmt_")) return;
    const cur = this.armed.get(watcher);
    if (cur && cur.at <= at) return;
    this.arm(watcher, at);
  }

  /** Arms the watcher's one timer for its earliest due time. */
  schedule(watcher: string): void {
    this.wb.flush();
    const now = this.d.clock.now();
    const w = this.q.watcher.get(watcher) as { window_due_at: number | null } | undefined;
    let due = (this.q.nextRelease.get(watcher) as { at: number | null }).at ?? Infinity;
    // A due message of a watcher in a turn waits for turn.ended, not for the clock.
    if (w?.window_due_at != null && !(w.window_due_at <= now && this.inTurn(watcher)))
      due = Math.min(due, w.window_due_at);
    const cur = this.armed.get(watcher);
    if (cur && cur.at === due) return;
    this.arm(watcher, due);
  }

  private arm(watcher: string, due: number): void {
    this.armed.get(watcher)?.cancel();
    this.armed.delete(watcher);
    if (due === Infinity) return;
    this.armed.set(watcher, {
      at: due,
      cancel: this.d.clock.at(due, () => {
        this.armed.delete(watcher);
        this.runSoon(watcher);
      }),
    });
  }

  disarm(watcher: string): void {
    this.armed.get(watcher)?.cancel();
    this.armed.delete(watcher);
  }

  /** Drops what a watcher still has open (it was archived or deleted). */
  dropAll(watcher: string): void {
    this.wb.flush();
    this.tx(() => {
      this.q.dropOpen.run(watcher);
      this.q.clearWindow.run(watcher);
    });
    this.disarm(watcher);
  }

  /** Start-up: everything held or due is re-armed; what fell due while the relay was down goes now. */
  recover(): void {
    this.q.prune.run(this.d.clock.now() - 24 * HOUR);
    for (const { watcher } of this.q.pending.all() as { watcher: string }[]) {
      this.known.add(watcher);
      this.run(watcher);
    }
  }
}
