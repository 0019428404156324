// The watching domain wired into the relay (seed §9): it listens to the bus, turns what
// happens into events for watchers, and delivers them; it answers the list badges
// (`relay.watching`) and hears about the watcher's own prompts (`relay.watchingHooks`).
import { sql } from "./sql.ts";
import type { Relay } from "../relay.ts";
import type { BusEvent } from "../core/bus.ts";
import { SubscriptionStore } from "./subscriptions.ts";
import { Delivery } from "./delivery.ts";
import { Capture } from "./capture.ts";
import { Monitors } from "./monitors.ts";
import { captureMissed } from "./recovery.ts";
import { WriteBehind } from "./write-behind.ts";
import { BusyTracker } from "./busy.ts";
import { moveSubscriptions } from "./transfer.ts";
import { versionLess } from "../core/versions.ts";
import type { EndReason, SubRow } from "./types.ts";

const FINAL = new Set(["done", "stopped", "error"]);

export class Watching {
  readonly subs: SubscriptionStore;
  readonly delivery: Delivery;
  readonly capture: Capture;
  readonly monitors: Monitors;

  readonly wb: WriteBehind;
  readonly busy = new BusyTracker();

  constructor(private relay: Relay) {
    this.wb = new WriteBehind(relay.db);
    this.subs = new SubscriptionStore(relay.db, () => versionLess(relay.version, "0.9.13"), this.wb);
    this.delivery = new Delivery(relay, this.subs, this.wb);
    this.capture = new Capture(relay, this.subs, this.delivery, this.wb);
    this.monitors = new Monitors(relay, this.subs, this.capture, this.busy);
    relay.watching = {
      isWatched: (id) => this.subs.isWatched(id),
      watchingCount: (id) => this.watchingCount(id),
    };
    relay.watchingHooks = {
      promptSent: (watcher, turnId) => this.promptSent(watcher, turnId),
      replyReceived: (watcher, turnId, status) => this.replyReceived(watcher, turnId, status),
    };
    relay.bus.on((e) => this.onBus(e));
  }

  /** After the relay's own recovery: what was held is armed again, what fell due goes now. */
  start(): void {
    this.busy.load(this.relay);
    captureMissed(this.relay, this.subs, this.capture);
    this.delivery.recover();
    this.monitors.rearmAll();
    // Stall clocks start for the sessions working now (few: a restart ended every running
    // turn and task), not by asking the store once per subscription.
    this.monitors.startStallClocksOfBusy();
    for (const sub of this.subs.idleArmed()) if (sub.events.has("all_idle")) this.monitors.checkAllIdle(sub);
    // The index of who watches what, if nothing above needed it yet: built once the relay
    // serves (the first request or event that needs it first builds it then).
    setImmediate(() => this.relay.db.open && this.subs.ensure());
  }

  private onBus(e: BusEvent): void {
    if (!this.subs.hasWatchers() && e.type !== "turn.ended" && e.type !== "turn.started" && e.type !== "task.updated") return;
    const now = this.relay.clock.now();
    switch (e.type) {
      case "turn.started":
        this.busy.turnStarted(e.sessionId);
        if (!this.subs.hasWatchers()) return;
        this.monitors.activity(e.sessionId);
        this.monitors.stateChanged(e.sessionId);
        return;
      case "turn.progress":
        this.monitors.activity(e.sessionId);
        return;
      case "turn.ended": {
        this.busy.turnEnded(e.sessionId);
        if (this.subs.hasWatchers()) {
          const turn = this.capture.endedTurn(e.turnId);
          const h = turn && this.capture.turnEnded(turn, now);
          if (h) this.capture.capture(h);
          this.monitors.activity(e.sessionId);
          this.monitors.stateChanged(e.sessionId);
        }
        // The watcher's own turn ended: what waited for it goes out now.
        if (this.delivery.isWatcher(e.sessionId)) this.delivery.run(e.sessionId);
        return;
      }
      case "task.updated": {
        this.busy.task(e.sessionId, e.taskId, e.status === "running");
        if (!this.subs.hasWatchers()) return;
        const task = this.relay.sessions.task(e.sessionId, e.taskId);
        const h = task && this.capture.taskChanged(task, now);
        if (h) this.capture.capture(h);
        this.monitors.activity(e.sessionId);
        this.monitors.stateChanged(e.sessionId);
        return;
      }
      case "card.created": {
        const q = this.relay.questions.get(e.cardId);
        const h = q && this.capture.questionAsked(q, now);
        if (h) this.capture.capture(h);
        return;
      }
      case "card.decided": {
        if (e.status !== "answered" && e.status !== "dismissed") return;
        const q = this.relay.questions.get(e.cardId);
        const h = q && this.capture.questionAnswered(q, now);
        if (h) this.capture.capture(h);
        this.monitors.activity(e.sessionId);
        return;
      }
      case "session.archived":
      case "session.deleted":
        this.checkArchived(e.sessionId);
        return;
      default:
        return;
    }
  }

  // ---- subscriptions starting and ending ----

  /** Call after a subscription was written (and its transaction committed). */
  started(row: SubRow): void {
    this.subs.add(row.id);
    const sub = this.subs.active(row.id);
    if (!sub) return;
    this.monitors.armIdle(sub);
    this.monitors.startStallClocks(sub);
    this.monitors.armBeat(sub);
    this.changed(row.watcher);
  }

  /** Ends subscriptions; what they hold is still delivered when due (nothing is lost). */
  end(ids: string[], reason: EndReason): string[] {
    this.wb.flush();
    const now = this.relay.clock.now();
    const ended = this.relay.db.transaction(() => ids.filter((id) => this.subs.end(id, reason, now)))();
    if (!ended.length) return ended;
    for (const id of ended) this.subs.drop(id);
    for (const id of ended) this.monitors.disarmBeat(id);
    const watchers = new Set(ended.map((id) => this.subs.get(id)!.watcher));
    for (const w of watchers) this.changed(w);
    return ended;
  }

  private checkArchived(sessionId: string): void {
    const asWatcher = this.subs.ofWatcher(sessionId);
    const asWatched = this.subs.watching(sessionId).filter((s) => !s.all);
    if (!asWatcher.length && !asWatched.length) return;
    const s = sql(this.relay.db, "SELECT archived_at, deleted_at FROM sessions WHERE id = ?").get(sessionId) as { archived_at: number | null; deleted_at: number | null } | undefined;
    if (s && !s.archived_at && !s.deleted_at) return;
    this.end([...asWatcher, ...asWatched].map((x) => x.id), "archived");
    // An archived watcher is woken no more: what it still had open is dropped.
    if (asWatcher.length) this.delivery.dropAll(sessionId);
  }

  private changed(watcher: string): void {
    this.relay.bus.emit({ type: "session.updated", sessionId: watcher });
  }

  // ---- badges ----

  private live = { changes: -1, n: 0 };

  /** Live sessions: a walk of the live index (10,000 entries at 100,000 stored), once per
   * list entry of an all-scope watcher. Kept until this connection writes anything (as the
   * list's `total`, sessions/list-query.ts): a page of such watchers counts once. */
  private liveCount(): number {
    const db = this.relay.db;
    const changes = (sql(db, "SELECT total_changes() AS c").get() as { c: number }).c;
    if (changes !== this.live.changes) {
      this.live = { changes, n: (sql(db, "SELECT COUNT(*) AS n FROM sessions INDEXED BY sessions_live_order WHERE deleted_at IS NULL AND archived_at IS NULL").get() as { n: number }).n };
    }
    return this.live.n;
  }

  watchingCount(watcher: string): number {
    const subs = this.subs.ofWatcher(watcher);
    if (!subs.length) return 0;
    const named = new Set<string>();
    for (const s of subs) if (!s.all) for (const id of s.sessions) named.add(id);
    const alls = subs.filter((s) => s.all);
    if (!alls.length) return named.size;
    // The all-scope ones together watch every live session but the watcher and what all of
    // them exclude: a count on the live index, not a read of every session's id.
    const common = [...alls[0].exclude].filter((id) => alls.every((s) => s.exclude.has(id)));
    const db = this.relay.db;
    const live = this.liveCount() - (sql(db, "SELECT 1 FROM sessions WHERE id = ? AND deleted_at IS NULL AND archived_at IS NULL").get(watcher) ? 1 : 0);
    const asked = [...new Set([...named, ...common])];
    const liveIds = new Set(
      asked.length
        ? (sql(db, "SELECT id FROM sessions WHERE deleted_at IS NULL AND archived_at IS NULL AND id IN (SELECT value FROM json_each(?))").all(JSON.stringify(asked)) as { id: string }[]).map((r) => r.id)
        : [],
    );
    const inAll = (id: string) => liveIds.has(id) && id !== watcher && !common.includes(id);
    let n = live - common.filter((id) => liveIds.has(id) && id !== watcher).length;
    for (const id of named) if (!inAll(id)) n++;
    return n;
  }

  // ---- no echo of the watcher's own prompts ----

  private promptSent(watcher: string, turnId: string): void {
    if (!this.subs.ofWatcher(watcher).length) return;
    const turn = this.relay.sessions.turn(turnId);
    if (!turn || turn.from_session !== watcher) return;
    if (!this.capture.waits.has(watcher)) this.capture.waits.set(watcher, new Set());
    this.capture.waits.get(watcher)!.add(turnId);
  }

  private replyReceived(watcher: string, turnId: string, status: string): void {
    const set = this.capture.waits.get(watcher);
    if (!set?.delete(turnId)) return;
    if (!set.size) this.capture.waits.delete(watcher);
    this.wb.flush();
    const db = this.relay.db;
    if (FINAL.has(status)) {
      // It has the reply from the call itself: that turn's turn_end does not wake it again.
      sql(db, "UPDATE watch_events SET state = 'dropped' WHERE watcher = ? AND key = ? AND type = 'turn_end' AND keep = 0 AND state IN ('held', 'ready')").run(watcher, `turn:${turnId}`);
    } else {
      // The wait ran out: the turn_end will wake it as for any prompt it did not wait for.
      sql(db, "UPDATE watch_events SET echo = 0 WHERE watcher = ? AND key = ? AND echo = 1").run(watcher, `turn:${turnId}`);
    }
    this.delivery.run(watcher);
  }

  /** Moves every active subscription of `from` to `to` (transfer_subscriptions, and
   * compaction: the new conversation takes over the old one's watching). */
  transfer(from: string, to: string, reason: EndReason = "transferred"): SubRow[] {
    this.wb.flush();
    const moved = moveSubscriptions(this.relay.db, this.subs, from, to, reason, this.relay.clock.now());
    this.subs.reload();
    this.monitors.rearmAll();
    this.delivery.noteWatcher(to);
    this.delivery.run(from);
    this.delivery.run(to);
    this.changed(from);
    this.changed(to);
    return moved;
  }
}
