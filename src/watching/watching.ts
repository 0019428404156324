// The watching domain (seed §9): it listens to the bus, turns what happens into events for
// watchers, and delivers them. Others use its `port` (port.ts): subscribing, ending and moving
// subscriptions, the list badges, no echo of a watcher's own prompts, urgent events.
import type { Db } from "../store/db.ts";
import type { Clock } from "../core/clock.ts";
import type { Bus, BusEvent } from "../core/bus.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import type { Turns } from "../sessions/turns.ts";
import type { TaskStore } from "../tasks/task-store.ts";
import type { Questions } from "../questions/ask-user.ts";
import { eventRefs } from "../sessions/event-refs.ts";
import { raiseFor } from "./raise.ts";
import { liveSessions, type LiveSessions } from "../sessions/live-sessions.ts";
import { inTurn } from "../sessions/in-turn.ts";
import { runningIn } from "../tasks/running-in.ts";
import { sql } from "./sql.ts";
import { SubscriptionStore } from "./subscriptions.ts";
import { Delivery, type RemoteOutbox } from "./delivery.ts";
import { Capture } from "./capture.ts";
import { Monitors } from "./monitors.ts";
import { captureMissed } from "./recovery.ts";
import { WriteBehind } from "./write-behind.ts";
import { BusyTracker } from "./busy.ts";
import { moveSubscriptions } from "./transfer.ts";
import { addSubscription, checkSubscriptionLimit } from "./add-subscription.ts";
import { subscriptionView } from "./views.ts";
import { activeSubRows } from "./active-subs.ts";
import { versionLess } from "../core/versions.ts";
import type { EndReason, SubRow } from "./types.ts";
import type { MirrorPort, WatchingPort } from "./port.ts";
import { earliest } from "./release.ts";
import { insertMirror } from "./mirror-subs.ts";

const FINAL = new Set(["done", "stopped", "error"]);

/** What watching needs: its tables, the one clock, the bus, the version this relay presents;
 * the sessions, tasks and questions it reads, the turn queue its messages join, and the outbox
 * of watchers on paired relays (pairing's, read when an event is for one). */
export interface WatchingDeps {
  db: Db;
  clock: Clock;
  bus: Pick<Bus, "on" | "emit">;
  /** The version this relay presents: before 0.9.13 a subscription's default events differ. */
  version: string;
  sessions: Pick<SessionStore, "get" | "turn" | "activeTurns" | "busySessions" | "state">;
  tasks: Pick<TaskStore, "task" | "tasksOf" | "runningTasks">;
  questions: Pick<Questions, "get" | "pending">;
  turns: Pick<Turns, "enqueue">;
  remoteOutbox: RemoteOutbox;
}

export class Watching {
  readonly subs: SubscriptionStore;
  readonly delivery: Delivery;
  readonly capture: Capture;
  readonly monitors: Monitors;

  readonly wb: WriteBehind;
  readonly busy = new BusyTracker();
  readonly port: WatchingPort;
  /** What pairing uses: the mirrors of subscriptions held on paired relays. */
  readonly mirrors: MirrorPort;
  private live: LiveSessions;

  constructor(private d: WatchingDeps) {
    this.wb = new WriteBehind(d.db);
    this.subs = new SubscriptionStore(d.db, () => versionLess(d.version, "0.9.13"), this.wb);
    this.live = liveSessions(d.db);
    const turns = inTurn(d.db);
    this.delivery = new Delivery(
      { db: d.db, clock: d.clock, turns: d.turns, remoteOutbox: d.remoteOutbox, live: this.live, inTurn: turns },
      this.subs,
      this.wb,
    );
    this.capture = new Capture(eventRefs(d.db), this.subs, this.delivery, this.wb);
    this.monitors = new Monitors(
      {
        clock: d.clock,
        sessions: d.sessions,
        tasks: d.tasks,
        questions: d.questions,
        live: this.live,
        inTurn: turns,
        runningIn: runningIn(d.db),
      },
      this.subs,
      this.capture,
      this.busy,
    );
    this.port = this.makePort();
    this.mirrors = this.makeMirrorPort();
    d.bus.on((e) => this.onBus(e));
  }

  private makePort(): WatchingPort {
    const { db, clock, sessions } = this.d;
    const subs = this.subs;
    const writer = { db, clock, watch: this };
    return {
      held: (watcher, but) => subs.held(watcher, but),
      checkLimit: (watcher, elsewhere) => checkSubscriptionLimit(writer, watcher, elsewhere),
      subscribe: (sub, elsewhere) => addSubscription(writer, sub, elsewhere),
      get: (id) => subs.get(id),
      listFor: (watcher, endedSince) => subs.listFor(watcher, endedSince),
      active: () => activeSubRows(db, subs),
      ofWatcher: (watcher) => subs.ofWatcher(watcher),
      end: (ids, reason) => this.end(ids, reason),
      transfer: (from, to, reason) => this.transfer(from, to, reason),
      view: (row) => subscriptionView({ db, sessions }, subs, row),
      raise: (sessionId, e, skip) =>
        raiseFor({ subs, capture: this.capture, now: () => clock.now() }, sessionId, e, skip),
      noEcho: {
        promptSent: (watcher, turnId) => this.promptSent(watcher, turnId),
        replyReceived: (watcher, turnId, status) => this.replyReceived(watcher, turnId, status),
      },
      badges: {
        isWatched: (id) => subs.isWatched(id),
        watchingCount: (id) => this.watchingCount(id),
      },
      deliverUrgent: (watcher, e) => this.delivery.deliverUrgent(watcher, e),
    };
  }

  private makeMirrorPort(): MirrorPort {
    const { db } = this.d;
    const { port, subs, delivery } = this;
    return {
      get: port.get,
      ofWatcher: port.ofWatcher,
      held: port.held,
      end: port.end,
      transfer: port.transfer,
      parse: (row) => subs.parse(row),
      earliest: (list, t, urgent) => earliest(subs, list, t, urgent),
      insertMirror: (sub, now, id, relay) => insertMirror(db, subs, sub, now, id, relay),
      delivery: {
        add: (watcher, e) => delivery.add(watcher, e),
        run: (watcher) => delivery.run(watcher),
        noteWatcher: (watcher) => delivery.noteWatcher(watcher),
      },
    };
  }

  /** After the relay's own recovery: what was held is armed again, what fell due goes now. */
  start(): void {
    this.busy.load(this.d.sessions, this.d.tasks);
    captureMissed(this.d, this.subs, this.capture);
    this.delivery.recover();
    this.monitors.rearmAll();
    // Stall clocks start for the sessions working now (few: a restart ended every running
    // turn and task), not by asking the store once per subscription.
    this.monitors.startStallClocksOfBusy();
    for (const sub of this.subs.idleArmed()) if (sub.events.has("all_idle")) this.monitors.checkAllIdle(sub);
    // The index of who watches what, if nothing above needed it yet: built once the relay
    // serves (the first request or event that needs it first builds it then).
    setImmediate(() => this.d.db.open && this.subs.ensure());
  }

  private onBus(e: BusEvent): void {
    if (!this.subs.hasWatchers() && e.type !== "turn.ended" && e.type !== "turn.started" && e.type !== "task.updated")
      return;
    const now = this.d.clock.now();
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
        const task = this.d.tasks.task(e.sessionId, e.taskId);
        const h = task && this.capture.taskChanged(task, now);
        if (h) this.capture.capture(h);
        this.monitors.activity(e.sessionId);
        this.monitors.stateChanged(e.sessionId);
        return;
      }
      case "card.created": {
        const q = this.d.questions.get(e.cardId);
        const h = q && this.capture.questionAsked(q, now);
        if (h) this.capture.capture(h);
        return;
      }
      case "card.decided": {
        if (e.status !== "answered" && e.status !== "dismissed") return;
        const q = this.d.questions.get(e.cardId);
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
    const now = this.d.clock.now();
    const ended = this.d.db.transaction(() => ids.filter((id) => this.subs.end(id, reason, now)))();
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
    if (this.live.isLive(sessionId)) return;
    this.end(
      [...asWatcher, ...asWatched].map((x) => x.id),
      "archived",
    );
    // An archived watcher is woken no more: what it still had open is dropped.
    if (asWatcher.length) this.delivery.dropAll(sessionId);
  }

  private changed(watcher: string): void {
    this.d.bus.emit({ type: "session.updated", sessionId: watcher });
  }

  // ---- badges ----

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
    const live = this.live.count() - (this.live.isLive(watcher) ? 1 : 0);
    const liveIds = new Set(this.live.among([...new Set([...named, ...common])]));
    const inAll = (id: string) => liveIds.has(id) && id !== watcher && !common.includes(id);
    let n = live - common.filter((id) => liveIds.has(id) && id !== watcher).length;
    for (const id of named) if (!inAll(id)) n++;
    return n;
  }

  // ---- no echo of the watcher's own prompts ----

  private promptSent(watcher: string, turnId: string): void {
    if (!this.subs.ofWatcher(watcher).length) return;
    const turn = this.d.sessions.turn(turnId);
    if (!turn || turn.from_session !== watcher) return;
    if (!this.capture.waits.has(watcher)) this.capture.waits.set(watcher, new Set());
    this.capture.waits.get(watcher)!.add(turnId);
  }

  private replyReceived(watcher: string, turnId: string, status: string): void {
    const set = this.capture.waits.get(watcher);
    if (!set?.delete(turnId)) return;
    if (!set.size) this.capture.waits.delete(watcher);
    this.wb.flush();
    const db = this.d.db;
    if (FINAL.has(status)) {
      // It has the reply from the call itself: that turn's turn_end does not wake it again.
      sql(
        db,
        "UPDATE watch_events SET state = 'dropped' WHERE watcher = ? AND key = ? AND type = 'turn_end' AND keep = 0 AND state IN ('held', 'ready')",
      ).run(watcher, `turn:${turnId}`);
    } else {
      // The wait ran out: the turn_end will wake it as for any prompt it did not wait for.
      sql(db, "UPDATE watch_events SET echo = 0 WHERE watcher = ? AND key = ? AND echo = 1").run(
        watcher,
        `turn:${turnId}`,
      );
    }
    this.delivery.run(watcher);
  }

  /** Moves every active subscription of `from` to `to` (transfer_subscriptions, and
   * compaction: the new conversation takes over the old one's watching). */
  transfer(from: string, to: string, reason: EndReason = "transferred"): SubRow[] {
    this.wb.flush();
    const moved = moveSubscriptions(this.d.db, this.subs, from, to, reason, this.d.clock.now());
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
