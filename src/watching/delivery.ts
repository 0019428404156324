// Delivery of relay events to a watching conversation (seed §9 "How events arrive",
// contract §4.6). The public entry for other domains is `deliverUrgent` below.
//
// Each watcher has an outbox in the store: `ready` events and `window_due_at`, when they
// must go out (the 30-second gathering window's close; at once for urgent events and for
// events a digest or quiet hours release). `held` events wait for their `release_at`.
// One relay.clock timer per watcher wakes at the earliest of these. Writing the message
// (a turn of the watcher, role `event`) and marking its events sent is one transaction:
// a SIGKILL either happened before (start-up delivers it) or after (it is not sent again).
import type { Relay } from "../relay.ts";
import type { Cancel } from "../core/clock.ts";
import { newId } from "../core/ids.ts";
import { HOUR } from "../core/clock.ts";
import type { SubscriptionStore } from "./subscriptions.ts";
import { composeMessage, type SubInfo } from "./event-lines.ts";
import { CAP_DIGEST_MS, WAKE_CAP, type EventRow } from "./types.ts";
import { fromJson } from "../store/db.ts";
import type { QuietHours } from "./quiet-hours.ts";

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
 * relay.delivery.deliverUrgent(watcherSessionId, { type: "question_answered", text, key })
 *
 * Urgent: no digest, quiet hours or wake-up cap holds it; an open gathering window goes out
 * with it. A watcher in a turn gets it (in one message with anything else due) when that
 * turn ends. The event row is written synchronously: call it inside your own
 * `relay.db.transaction(...)` and the event commits (or rolls back) with your change;
 * the message itself is written right after, from the store, so a SIGKILL in between
 * delivers it at the next start, once.
 */
export interface DeliveryApi {
  deliverUrgent(watcherSessionId: string, event: UrgentEvent): void;
}

export interface NewEvent {
  key: string;
  type: string;
  sessionId: string | null;
  turnId: string | null;
  line: string;
  urgent: boolean;
  subs: string[];
  at: number;
  state: "held" | "ready";
  hold: "digest" | "quiet" | null;
  holdSub: string | null;
  releaseAt: number | null;
  echo: boolean;
  keep: boolean;
}

export class Delivery implements DeliveryApi {
  private armed = new Map<string, { at: number; cancel: Cancel }>();
  private q;
  /** Seen by the bench: due time and the moment each message was written. */
  onWritten?: (watcher: string, dueAt: number, writtenAt: number, events: number) => void;
  private written = 0;

  constructor(
    private relay: Relay,
    private subs: SubscriptionStore,
  ) {
    const db = relay.db;
    this.q = {
      insert: db.prepare(`INSERT OR IGNORE INTO watch_events (watcher, key, type, session_id, turn_id, line, urgent, subs_json, at, state, hold, hold_sub, release_at, echo, keep)
        VALUES (@watcher, @key, @type, @sessionId, @turnId, @line, @urgent, @subs, @at, @state, @hold, @holdSub, @releaseAt, @echo, @keep)`),
      openWindow: db.prepare(`INSERT INTO watchers (watcher, window_due_at) VALUES (?, ?) ON CONFLICT(watcher) DO UPDATE SET
        window_due_at = CASE WHEN window_due_at IS NULL OR window_due_at > excluded.window_due_at THEN excluded.window_due_at ELSE window_due_at END`),
      watcher: db.prepare("SELECT * FROM watchers WHERE watcher = ?"),
      clearWindow: db.prepare("UPDATE watchers SET window_due_at = NULL WHERE watcher = ?"),
      nextRelease: db.prepare("SELECT MIN(release_at) AS at FROM watch_events WHERE watcher = ? AND state = 'held' AND echo = 0"),
      dueHeld: db.prepare("SELECT * FROM watch_events WHERE watcher = ? AND state = 'held' AND echo = 0 AND release_at <= ? ORDER BY at, id"),
      release: db.prepare("UPDATE watch_events SET state = 'ready' WHERE id = ?"),
      ready: db.prepare("SELECT * FROM watch_events WHERE watcher = ? AND state = 'ready' ORDER BY at, id"),
      sent: db.prepare("UPDATE watch_events SET state = 'sent', message_id = ?, sent_at = ? WHERE watcher = ? AND state = 'ready'"),
      cap: db.prepare("UPDATE watch_events SET state = 'held', capped = 1, release_at = ? WHERE watcher = ? AND state = 'ready'"),
      capHeld: db.prepare("SELECT MIN(release_at) AS at FROM watch_events WHERE watcher = ? AND state = 'held' AND capped = 1"),
      capAnchor: db.prepare("UPDATE watchers SET cap_anchor_at = ? WHERE watcher = ?"),
      // Only the past hour: a manual clock set back does not count wake-ups "from the future".
      wakeups: db.prepare("SELECT COUNT(*) AS n FROM watch_wakeups WHERE watcher = ? AND at > ? AND at <= ?"),
      wake: db.prepare("INSERT INTO watch_wakeups (watcher, at) VALUES (?, ?)"),
      pruneWakeups: db.prepare("DELETE FROM watch_wakeups WHERE watcher = ? AND at <= ?"),
      dropOpen: db.prepare("UPDATE watch_events SET state = 'dropped' WHERE watcher = ? AND state IN ('held', 'ready')"),
      pending: db.prepare("SELECT watcher FROM watchers WHERE window_due_at IS NOT NULL UNION SELECT DISTINCT watcher FROM watch_events WHERE state IN ('held', 'ready')"),
      prune: db.prepare("DELETE FROM watch_events WHERE state IN ('sent', 'dropped') AND at < ?"),
    };
  }

  deliverUrgent(watcher: string, e: UrgentEvent): void {
    this.add(watcher, {
      key: e.key ?? `urgent:${newId("evt")}`, type: e.type, sessionId: e.sessionId ?? null, turnId: null, line: e.text, urgent: true,
      subs: [], at: this.relay.clock.now(), state: "ready", hold: null, holdSub: null, releaseAt: null, echo: false, keep: true,
    });
    // After the caller's transaction (if any) has committed.
    queueMicrotask(() => this.run(watcher));
  }

  /** Writes one event for a watcher (inside the caller's transaction). False when this
   * watcher already has it: the same thing happening is delivered once. */
  add(watcher: string, e: NewEvent): boolean {
    const r = this.q.insert.run({
      watcher, key: e.key, type: e.type, sessionId: e.sessionId, turnId: e.turnId, line: e.line, urgent: e.urgent ? 1 : 0,
      subs: JSON.stringify(e.subs), at: e.at, state: e.state, hold: e.hold, holdSub: e.holdSub, releaseAt: e.releaseAt,
      echo: e.echo ? 1 : 0, keep: e.keep ? 1 : 0,
    });
    if (!r.changes) return false;
    if (e.state === "ready") this.q.openWindow.run(watcher, e.urgent ? e.at : e.at + this.gatherMs);
    return true;
  }

  gatherMs = 30_000;

  /** Releases what fell due, writes the message when it is due and the watcher is free,
   * and re-arms the watcher's timer. Called by its timer, when its turn ends, after events. */
  run(watcher: string): void {
    const now = this.relay.clock.now();
    const db = this.relay.db;
    const session = this.relay.sessions.get(watcher);
    if (!session || session.archived_at) {
      db.transaction(() => {
        this.q.dropOpen.run(watcher);
        this.q.clearWindow.run(watcher);
      })();
      this.disarm(watcher);
      return;
    }
    db.transaction(() => this.releaseDue(watcher, now))();
    const w = this.q.watcher.get(watcher) as { window_due_at: number | null; cap_anchor_at: number | null } | undefined;
    if (w?.window_due_at != null && w.window_due_at <= now && !this.inTurn(watcher)) this.flush(watcher, now, w.window_due_at, w.cap_anchor_at);
    this.schedule(watcher);
  }

  /** Held events whose time came become ready and due now (a digest does not wait another 30 s). */
  private releaseDue(watcher: string, now: number): void {
    const due = this.q.dueHeld.all(watcher, now) as EventRow[];
    if (!due.length) return;
    const anchors = new Map<string, number>();
    for (const e of due) {
      this.q.release.run(e.id);
      if (e.hold === "digest" && e.hold_sub && !e.capped) anchors.set(e.hold_sub, Math.max(anchors.get(e.hold_sub) ?? 0, e.release_at!));
      if (e.hold === "quiet" && e.hold_sub && !e.capped) {
        // A digest moved to the window's end counts from there.
        const sub = this.subs.get(e.hold_sub);
        if (sub?.digest_minutes) anchors.set(e.hold_sub, Math.max(anchors.get(e.hold_sub) ?? 0, e.release_at!));
      }
    }
    for (const [id, at] of anchors) this.subs.setDigestAnchor(id, at);
    this.q.openWindow.run(watcher, Math.min(now, ...due.map((e) => e.release_at!)));
  }

  private flush(watcher: string, now: number, dueAt: number, capAnchor: number | null): void {
    const db = this.relay.db;
    db.transaction(() => {
      const events = this.q.ready.all(watcher) as EventRow[];
      if (!events.length) {
        this.q.clearWindow.run(watcher);
        return;
      }
      const capDigest = events.some((e) => e.capped);
      const urgent = events.some((e) => e.urgent);
      if (!capDigest && !urgent && this.wakeups(watcher, now) >= WAKE_CAP) {
        // Past 20 wake-ups in the sliding hour: the rest go out as a digest every 10 minutes.
        const held = (this.q.capHeld.get(watcher) as { at: number | null }).at;
        this.q.cap.run(held ?? this.nextCapDigest(capAnchor, now), watcher);
        this.q.clearWindow.run(watcher);
        return;
      }
      const text = composeMessage(events, (id) => this.subInfo(id));
      const { messageId } = this.relay.turns.enqueue({ sessionId: watcher, role: "event", text });
      this.q.sent.run(messageId, now, watcher);
      this.q.clearWindow.run(watcher);
      this.q.wake.run(watcher, now);
      this.q.pruneWakeups.run(watcher, now - HOUR);
      if (capDigest) this.q.capAnchor.run(now, watcher);
      if (++this.written % 500 === 0) this.q.prune.run(now - 24 * HOUR);
      this.onWritten?.(watcher, dueAt, now, events.length);
    })();
  }

  private nextCapDigest(anchor: number | null, now: number): number {
    if (anchor == null) return now + CAP_DIGEST_MS;
    return anchor + Math.max(1, Math.ceil((now - anchor) / CAP_DIGEST_MS)) * CAP_DIGEST_MS;
  }

  wakeups(watcher: string, now: number): number {
    return (this.q.wakeups.get(watcher, now - HOUR, now) as { n: number }).n;
  }

  private subInfo(id: string): SubInfo | undefined {
    const row = this.subs.get(id);
    return row ? { digestMinutes: row.digest_minutes, quiet: fromJson<QuietHours | null>(row.quiet_json, null) } : undefined;
  }

  /** A watcher with a queued or running turn gets its message when the turn ends. */
  private inTurn(watcher: string): boolean {
    return this.relay.sessions.activeTurns(watcher).length > 0;
  }

  /** Whether the watcher has a message due or a window open (cheap: one row). */
  hasOpen(watcher: string): boolean {
    return (this.q.watcher.get(watcher) as { window_due_at: number | null } | undefined)?.window_due_at != null;
  }

  /** Arms the watcher's one timer for its earliest due time. */
  schedule(watcher: string): void {
    const now = this.relay.clock.now();
    const w = this.q.watcher.get(watcher) as { window_due_at: number | null } | undefined;
    let due = (this.q.nextRelease.get(watcher) as { at: number | null }).at ?? Infinity;
    // A due message of a watcher in a turn waits for turn.ended, not for the clock.
    if (w?.window_due_at != null && !(w.window_due_at <= now && this.inTurn(watcher))) due = Math.min(due, w.window_due_at);
    const cur = this.armed.get(watcher);
    if (cur && cur.at === due) return;
    cur?.cancel();
    this.armed.delete(watcher);
    if (due === Infinity) return;
    this.armed.set(watcher, { at: due, cancel: this.relay.clock.at(due, () => {
      this.armed.delete(watcher);
      this.run(watcher);
    }) });
  }

  disarm(watcher: string): void {
    this.armed.get(watcher)?.cancel();
    this.armed.delete(watcher);
  }

  /** Drops what a watcher still has open (it was archived or deleted). */
  dropAll(watcher: string): void {
    this.relay.db.transaction(() => {
      this.q.dropOpen.run(watcher);
      this.q.clearWindow.run(watcher);
    })();
    this.disarm(watcher);
  }

  /** Start-up: everything held or due is re-armed; what fell due while the relay was down goes now. */
  recover(): void {
    this.q.prune.run(this.relay.clock.now() - 24 * HOUR);
    for (const { watcher } of this.q.pending.all() as { watcher: string }[]) this.run(watcher);
  }
}
