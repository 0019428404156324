// Events no single bus message says: `stalled` (a working session shows no progress for
// stalledMinutes), `all_idle` (every watched session has stopped working), and heartbeats
// (every heartbeatMinutes, never inside quiet hours).
//
// Stalled timers live in memory only: a restart ends every running turn and task, so no
// stall survives it. all_idle's "something worked since" and heartbeat due times are stored.
import type { Cancel, Clock } from "../core/clock.ts";
import { MINUTE } from "../core/clock.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import type { TaskStore } from "../tasks/task-store.ts";
import type { Questions } from "../questions/ask-user.ts";
import type { LiveSessions } from "../sessions/live-sessions.ts";
import type { InTurn } from "../sessions/in-turn.ts";
import type { RunningIn } from "../tasks/running-in.ts";
import type { SubscriptionStore } from "./subscriptions.ts";
import type { Capture } from "./capture.ts";
import type { Sub } from "./types.ts";
import { lines, sessionRef } from "./event-lines.ts";
import type { BusyTracker } from "./busy.ts";
import { safely } from "./later.ts";

export interface MonitorDeps {
  clock: Clock;
  sessions: Pick<SessionStore, "get" | "activeTurns" | "state">;
  tasks: Pick<TaskStore, "tasksOf">;
  questions: Pick<Questions, "pending">;
  /** What the store says is live and working (sessions/, tasks/). */
  live: Pick<LiveSessions, "allBut">;
  inTurn: Pick<InTurn, "among" | "live">;
  runningIn: RunningIn;
}

export class Monitors {
  private lastActivity = new Map<string, number>();
  private stallTimers = new Map<string, { at: number; cancel: Cancel }>();
  private stalledFired = new Map<string, Set<string>>();
  private beats = new Map<string, Cancel>();

  constructor(
    private d: MonitorDeps,
    private subs: SubscriptionStore,
    private capture: Capture,
    private busy: BusyTracker,
  ) {}

  // ---- stalled ----

  /** Something moved in a session: its stall clock starts again. */
  activity(sessionId: string): void {
    const watching = this.subs.watching(sessionId).filter((s) => s.events.has("stalled"));
    if (!watching.length) return;
    this.lastActivity.set(sessionId, this.d.clock.now());
    this.stalledFired.delete(sessionId);
    this.armStall(sessionId, watching);
  }

  private armStall(sessionId: string, watching: Sub[]): void {
    const last = this.lastActivity.get(sessionId);
    if (last === undefined) return;
    const fired = this.stalledFired.get(sessionId);
    const next = Math.min(...watching.filter((s) => !fired?.has(s.id)).map((s) => last + s.stalledMinutes * MINUTE));
    const cur = this.stallTimers.get(sessionId);
    if (cur && cur.at <= next && cur.at > this.d.clock.now()) return; // fires first and re-checks
    cur?.cancel();
    this.stallTimers.delete(sessionId);
    if (next === Infinity) return;
    this.stallTimers.set(sessionId, {
      at: next,
      cancel: this.d.clock.at(next, () => {
        this.stallTimers.delete(sessionId);
        this.checkStall(sessionId);
      }),
    });
  }

  private checkStall(sessionId: string): void {
    const now = this.d.clock.now();
    const watching = this.subs.watching(sessionId).filter((s) => s.events.has("stalled"));
    const what = this.working(sessionId);
    if (!watching.length || !what) {
      this.lastActivity.delete(sessionId);
      return;
    }
    // Task output does not come through the bus: read its time here.
    let last = this.lastActivity.get(sessionId) ?? now;
    for (const t of this.d.tasks.tasksOf(sessionId))
      if (t.status === "running" && t.last_output_at && t.last_output_at > last) last = t.last_output_at;
    if (last !== this.lastActivity.get(sessionId)) {
      this.lastActivity.set(sessionId, last);
      this.stalledFired.delete(sessionId);
    }
    const fired = this.stalledFired.get(sessionId) ?? new Set<string>();
    const due = watching.filter((s) => !fired.has(s.id) && now - last >= s.stalledMinutes * MINUTE);
    if (due.length) {
      const s = this.d.sessions.get(sessionId)!;
      const minutes = Math.floor((now - last) / MINUTE);
      this.capture.capture(
        {
          key: `stalled:${sessionId}:${last}`,
          type: "stalled",
          sessionId,
          at: now,
          line: lines.stalled(sessionRef(s.title, s.id), minutes, what),
        },
        due,
      );
      for (const d of due) fired.add(d.id);
      this.stalledFired.set(sessionId, fired);
    }
    this.armStall(sessionId, watching);
  }

  /** What keeps a session working, or null when idle (or only waiting on a question, which was told already). */
  private working(sessionId: string): string | null {
    if (this.d.questions.pending(sessionId).length) return null;
    const turns = this.d.sessions.activeTurns(sessionId);
    if (turns.some((t) => t.status === "running")) return "turn running";
    if (turns.length) return "turn queued";
    return this.d.tasks.tasksOf(sessionId).some((t) => t.status === "running") ? "task running" : null;
  }

  /** A new subscription starts the stall clock of the sessions it finds working. */
  startStallClocks(sub: Sub): void {
    if (!sub.events.has("stalled")) return;
    for (const id of this.busyInScope(sub)) if (!this.lastActivity.has(id)) this.activity(id);
  }

  /** Start-up: the stall clock of every working session some subscription watches for
   * `stalled` (what startStallClocks does for each subscription, driven by the few working
   * sessions instead of the many subscriptions). */
  startStallClocksOfBusy(): void {
    for (const id of [...this.busy.busy()]) if (!this.lastActivity.has(id)) this.activity(id);
  }

  // ---- all_idle ----

  /** A watched session's state changed (the tracker already knows how). Working arms the
   * subscriptions watching it; stopping is looked at once the tick is over, when a queued
   * turn behind the one that ended has started. */
  stateChanged(sessionId: string): void {
    const subs = this.subs.watching(sessionId).filter((s) => s.events.has("all_idle"));
    if (!subs.length) return;
    if (this.busy.isBusy(sessionId)) {
      for (const sub of subs) if (!sub.row.idle_armed) this.subs.setIdleArmed(sub.id, true);
      return;
    }
    if (!subs.some((s) => s.row.idle_armed)) return;
    queueMicrotask(
      safely("checking all_idle", () => {
        if (this.busy.isBusy(sessionId)) return;
        for (const sub of this.subs.watching(sessionId))
          if (sub.events.has("all_idle") && sub.row.idle_armed && this.idleInMemory(sub)) this.checkAllIdle(sub);
      }),
    );
  }

  private idleInMemory(sub: Sub): boolean {
    if (!sub.all) return !sub.sessions.some((id) => this.busy.isBusy(id));
    for (const id of this.busy.busy()) if (id !== sub.watcher && !sub.exclude.has(id)) return false;
    return true;
  }

  checkAllIdle(sub: Sub): void {
    if (!sub.row.idle_armed || this.busyInScope(sub).length) return;
    const n = this.scopeCount(sub);
    const now = this.d.clock.now();
    this.subs.setIdleArmed(sub.id, false);
    this.capture.capture(
      {
        key: `all_idle:${sub.id}:${now}`,
        type: "all_idle",
        sessionId: null,
        at: now,
        onlySub: sub.id,
        line: lines.allIdle(n, sub.id),
      },
      [sub],
    );
  }

  /** Sessions of the subscription (not archived) with a queued or running turn or a running
   * task: from its own list (a handful of ids, each looked up by index) in its order, or for
   * all-scope every live one by id. */
  busyInScope(sub: Sub): string[] {
    const { inTurn, runningIn } = this.d;
    if (!sub.all) {
      const busy = new Set([...inTurn.among(sub.sessions), ...runningIn.among(sub.sessions)]);
      return sub.sessions.filter((id) => busy.has(id));
    }
    const busy = [...new Set([...inTurn.live(), ...runningIn.live()])].sort();
    return busy.filter((id) => id !== sub.watcher && !sub.exclude.has(id));
  }

  scopeCount(sub: Sub): number {
    if (!sub.all) return sub.sessions.length;
    return this.d.live.allBut(sub.watcher).filter((id) => !sub.exclude.has(id)).length;
  }

  /** A new subscription starts armed when a watched session is working right now. */
  armIdle(sub: Sub): void {
    if (sub.events.has("all_idle") && this.busyInScope(sub).length) this.subs.setIdleArmed(sub.id, true);
  }

  // ---- heartbeats ----

  armBeat(sub: Sub): void {
    this.beats.get(sub.id)?.();
    this.beats.delete(sub.id);
    const due = sub.row.heartbeat_due_at;
    if (!sub.row.heartbeat_minutes || due == null) return;
    this.beats.set(
      sub.id,
      this.d.clock.at(due, () => this.beat(sub.id)),
    );
  }

  disarmBeat(id: string): void {
    this.beats.get(id)?.();
    this.beats.delete(id);
  }

  private beat(id: string): void {
    this.beats.delete(id);
    const sub = this.subs.active(id);
    if (!sub?.row.heartbeat_minutes || sub.row.heartbeat_due_at == null) return;
    const now = this.d.clock.now();
    const every = sub.row.heartbeat_minutes * MINUTE;
    const due = sub.row.heartbeat_due_at;
    // No heartbeats inside quiet hours; one beat for a stretch the relay was down.
    const quiet = sub.quiet ? this.subs.window(sub.quiet).inside(now) : false;
    if (!quiet) {
      const working = this.busyInScope(sub).map((sid) => {
        const s = this.d.sessions.get(sid)!;
        return `"${s.title}" (${s.id}) ${this.d.sessions.state(sid)}`;
      });
      this.capture.capture(
        {
          key: `heartbeat:${id}:${due}`,
          type: "heartbeat",
          sessionId: null,
          at: now,
          onlySub: id,
          line: lines.heartbeat(id, this.scopeCount(sub), working),
        },
        [sub],
      );
    }
    this.subs.setHeartbeatDue(id, due + Math.max(1, Math.ceil((now + 1 - due) / every)) * every);
    this.armBeat(this.subs.active(id) ?? sub);
  }

  /** Start-up and index changes: every active heartbeat armed from its stored due time. */
  rearmAll(): void {
    for (const id of [...this.beats.keys()]) this.disarmBeat(id);
    for (const sub of this.subs.withHeartbeat()) this.armBeat(sub);
  }
}
