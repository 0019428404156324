import { MINUTE, type Cancel } from "../core/clock.ts";
import { newId } from "../core/ids.ts";
import { RelayError } from "../core/errors.ts";
import { fromJson, type Db } from "../store/db.ts";
import type { Bus } from "../core/bus.ts";
import type { Clock } from "../core/clock.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import type { Turns } from "../sessions/turns.ts";
import { nextGridTime } from "./grid.ts";
import { ScheduleStore, type EndReason, type ScheduleRow } from "./store.ts";
import { scheduleMessage } from "./view.ts";
import { OWNER_SETTER } from "./new-schedule.ts";

export const SCHEDULE_LIMIT = 20;

export interface NewSchedule {
  sessionId: string;
  setBy: string;
  title: string;
  text: string;
  at: number | null;
  everyMinutes: number | null;
  origin: unknown;
}

/** What schedules use: their table, the one clock, the bus; the sessions they fire into and
 * the queue their messages join; loop protection's count of the setter (approvals). */
export interface SchedulesDeps {
  db: Db;
  clock: Pick<Clock, "now" | "at" | "horizon">;
  bus: Pick<Bus, "emit">;
  sessions: Pick<SessionStore, "get" | "turn">;
  turns: Pick<Turns, "enqueue">;
  approvals: {
    loopState(sessionId: string): { count: number; allowance: number };
    countPrompts(sessionId: string, n: number): void;
  };
}

/** Schedules (seed §10): due times in SQLite, one clock timer for the earliest one. A
 * firing and its queued message commit in one transaction, so nothing fires twice, also
 * across SIGKILL restarts; times missed while down are seen at start-up and fire once. */
export class Schedules {
  readonly store: ScheduleStore;
  private cancel: Cancel | null = null;
  private armedFor = Infinity;
  private running = false;

  constructor(private d: SchedulesDeps) {
    this.store = new ScheduleStore(d.db);
  }

  /** At start-up: fire what fell due while the relay was down (once each), then arm. */
  start(): void {
    this.runDue();
  }

  create(s: NewSchedule): ScheduleRow {
    const { d } = this;
    const now = d.clock.now();
    const first = s.at ?? now + (s.everyMinutes ?? 0) * MINUTE;
    // An `at` already past on a repeating schedule joins its grid at the next time ahead.
    const next = s.everyMinutes && first <= now ? nextGridTime(first, s.everyMinutes, now) : first;
    const id = newId("sch");
    d.db.transaction(() => {
      this.checkLimits(s.sessionId, s.setBy);
      this.store.insert({
        id,
        session_id: s.sessionId,
        set_by: s.setBy,
        title: s.title,
        text: s.text,
        at: s.at,
        every_minutes: s.everyMinutes,
        first_at: first,
        next_fire_at: next,
        origin_json: s.origin == null ? null : JSON.stringify(s.origin),
        created_at: now,
      });
    })();
    this.changed(s.sessionId, id);
    this.arm();
    return this.store.get(id)!;
  }

  /** contract §6: 20 active schedules firing into a conversation, 20 set by it for others. */
  checkLimits(sessionId: string, setBy: string): void {
    const other = sessionId !== setBy;
    if (this.store.countInto(sessionId) >= SCHEDULE_LIMIT) {
      const whose = other
        ? `Session "${this.d.sessions.get(sessionId)?.title}" (${sessionId}) already has`
        : "This conversation already has";
      throw new RelayError(
        "REMOTE_RELAY_SCHEDULE_LIMIT",
        `${whose} ${SCHEDULE_LIMIT} active schedules firing into it (at most ${SCHEDULE_LIMIT}). Unschedule one first. Nothing was scheduled.`,
      );
    }
    // The owner is no conversation: only the limit of the session it fires into applies.
    if (other && setBy !== OWNER_SETTER && this.store.countSetForOthers(setBy) >= SCHEDULE_LIMIT) {
      throw new RelayError(
        "REMOTE_RELAY_SCHEDULE_LIMIT",
        `This conversation has already set ${SCHEDULE_LIMIT} active schedules for other sessions (at most ${SCHEDULE_LIMIT}). Unschedule one first. Nothing was scheduled.`,
      );
    }
  }

  /** Ends one schedule (unschedule, Cancel). False when it had already ended. */
  end(id: string, reason: EndReason): boolean {
    const row = this.store.get(id);
    const ok = this.store.end(id, reason, this.d.clock.now());
    if (ok && row) this.changed(row.session_id, id);
    this.arm();
    return ok;
  }

  /** Its session or its setter was archived or deleted. */
  endForSession(sessionId: string, reason: "archived" | "deleted"): void {
    const ids = this.store.endForSession(sessionId, reason, this.d.clock.now());
    for (const id of ids) this.d.bus.emit({ type: "schedule.updated", sessionId, scheduleId: id });
    if (ids.length) this.arm();
  }

  /** Compaction (contract §3): the new conversation takes over both kinds, firing into it
   * and set by it. For POST /api/sessions/:id/compact: call before archiving the old one. */
  moveConversation(from: string, to: string): void {
    this.d.db.prepare("UPDATE schedules SET session_id = ? WHERE session_id = ? AND ended_at IS NULL").run(to, from);
    this.d.db.prepare("UPDATE schedules SET set_by = ? WHERE set_by = ? AND ended_at IS NULL").run(to, from);
  }

  /** The owner spoke in a conversation: its loop count was reset, so its held schedules go now. */
  ownerSpoke(sessionId: string): void {
    if (this.store.holdsFor(sessionId)) this.runDue();
  }

  /** Fires every schedule due now, and re-checks held ones; then arms for the next. */
  private runDue(): void {
    if (this.running) return;
    this.running = true;
    try {
      const now = this.d.clock.now();
      for (const row of this.store.dueOrHeld(now)) {
        try {
          this.fire(row, now);
        } catch (err) {
          console.error(`[schedules] firing ${row.id} failed:`, err);
        }
      }
    } finally {
      this.running = false;
    }
    this.arm();
  }

  private fire(row: ScheduleRow, now: number): void {
    const { d } = this;
    const target = d.sessions.get(row.session_id);
    if (!target || target.archived_at) {
      // The end hooks normally got here first; a row left over ends quietly.
      this.store.end(row.id, target ? "archived" : "deleted", now);
      return;
    }
    // What the owner set is no agent's prompt: loop protection does not count it.
    const byOwner = row.set_by === OWNER_SETTER;
    const other = row.session_id !== row.set_by && !byOwner;
    const next = row.every_minutes ? nextGridTime(row.first_at, row.every_minutes, now) : null;
    if (other) {
      // Loop protection: each firing into another session counts for the setter; used up → held.
      const loop = d.approvals.loopState(row.set_by);
      if (loop.count + 1 > loop.allowance) {
        if (row.held_since == null) {
          this.store.update(row.id, { held_since: now });
          this.changed(row.session_id, row.id);
        }
        return;
      }
    }
    // No pile-up: the previous firing's message still waits in the queue → skip this time.
    const prev = row.last_turn_id ? d.sessions.turn(row.last_turn_id) : undefined;
    if (prev?.status === "queued") {
      // Every later time up to the end of a clock step would be skipped the same way (nothing
      // leaves the queue while the manual clock jumps): skip them all at once, on the grid.
      const far =
        next != null ? nextGridTime(row.first_at, row.every_minutes!, Math.max(now, d.clock.horizon())) : null;
      const skipped = next != null && far != null ? 1 + Math.round((far - next) / (row.every_minutes! * MINUTE)) : 1;
      d.db.transaction(() => {
        this.store.update(row.id, {
          skipped_count: row.skipped_count + skipped,
          held_since: null,
          next_fire_at: far ?? now,
        });
        if (next == null) this.store.end(row.id, "fired", now);
      })();
      this.changed(row.session_id, row.id);
      return;
    }
    d.db.transaction(() => {
      const { turn } = d.turns.enqueue({
        sessionId: row.session_id,
        role: "schedule",
        text: scheduleMessage(d, row),
        fromSession: byOwner ? null : row.set_by,
        origin: fromJson(row.origin_json, null),
        mode: null,
      });
      if (other) d.approvals.countPrompts(row.set_by, 1);
      // A one-off ends in the same write (what store.end sets: next_fire_at and held_since null).
      this.store.update(row.id, {
        fired_count: row.fired_count + 1,
        last_fired_at: now,
        last_turn_id: turn.id,
        held_since: null,
        next_fire_at: next,
        ...(next == null ? { ended_at: now, end_reason: "fired" as const } : {}),
      });
    })();
    this.changed(row.session_id, row.id);
  }

  /** One clock timer for the earliest due time; a held schedule is looked at every minute. */
  private arm(): void {
    const now = this.d.clock.now();
    let earliest = this.store.nextDue() ?? Infinity;
    // A held one is looked at again every minute; within a clock step nothing can release
    // it (only the owner's message does), so it is looked at after the step.
    for (const r of this.store.held())
      earliest = Math.min(earliest, nextGridTime(r.held_since!, 1, Math.max(now, this.d.clock.horizon())));
    if (earliest === this.armedFor && this.cancel) return;
    this.cancel?.();
    this.cancel = null;
    this.armedFor = earliest;
    if (earliest === Infinity) return;
    this.cancel = this.d.clock.at(earliest, () => {
      this.cancel = null;
      this.armedFor = Infinity;
      this.runDue();
    });
  }

  private changed(sessionId: string, scheduleId: string): void {
    this.d.bus.emit({ type: "schedule.updated", sessionId, scheduleId });
  }
}
