import { HOUR } from "../core/clock.ts";
import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";

export type EndReason = "unscheduled" | "fired" | "archived" | "deleted";

export interface ScheduleRow {
  id: string;
  session_id: string;
  set_by: string;
  title: string;
  text: string;
  at: number | null;
  every_minutes: number | null;
  first_at: number;
  next_fire_at: number | null;
  last_fired_at: number | null;
  fired_count: number;
  skipped_count: number;
  last_turn_id: string | null;
  held_since: number | null;
  origin_json: string | null;
  created_at: number;
  ended_at: number | null;
  end_reason: EndReason | null;
}

/** Rows of the schedules table; no rules here. */
export class ScheduleStore {
  constructor(private db: Db) {}

  get(id: string): ScheduleRow | undefined {
    return sql(this.db, "SELECT * FROM schedules WHERE id = ?").get(id) as ScheduleRow | undefined;
  }

  insert(
    r: Omit<
      ScheduleRow,
      "last_fired_at" | "fired_count" | "skipped_count" | "last_turn_id" | "held_since" | "ended_at" | "end_reason"
    >,
  ): void {
    sql(
      this.db,
      `INSERT INTO schedules (id, session_id, set_by, title, text, at, every_minutes, first_at, next_fire_at, origin_json, created_at)
      VALUES (@id, @session_id, @set_by, @title, @text, @at, @every_minutes, @first_at, @next_fire_at, @origin_json, @created_at)`,
    ).run(r);
  }

  /** Active schedules firing into a conversation (its own ones included). */
  countInto(sessionId: string): number {
    return (
      sql(this.db, "SELECT COUNT(*) AS n FROM schedules WHERE session_id = ? AND ended_at IS NULL").get(sessionId) as {
        n: number;
      }
    ).n;
  }

  /** Active schedules a conversation set for other sessions. */
  countSetForOthers(sessionId: string): number {
    return (
      sql(
        this.db,
        "SELECT COUNT(*) AS n FROM schedules WHERE set_by = ? AND session_id != set_by AND ended_at IS NULL",
      ).get(sessionId) as { n: number }
    ).n;
  }

  /** What list_schedules shows a conversation: firing into it or set by it, active or ended within the hour. */
  listFor(sessionId: string, now: number): ScheduleRow[] {
    return sql(
      this.db,
      `SELECT * FROM schedules WHERE (session_id = ? OR set_by = ?) AND (ended_at IS NULL OR ended_at >= ?)
      ORDER BY ended_at IS NOT NULL, created_at`,
    ).all(sessionId, sessionId, now - HOUR) as ScheduleRow[];
  }

  active(): ScheduleRow[] {
    return sql(
      this.db,
      "SELECT * FROM schedules WHERE ended_at IS NULL ORDER BY next_fire_at, created_at",
    ).all() as ScheduleRow[];
  }

  /** What a firing looks at: schedules due by `now`, and the ones loop protection holds
   * (re-checked each time). Read by index, so a firing costs what is due, not what is stored. */
  dueOrHeld(now: number): ScheduleRow[] {
    const due = sql(
      this.db,
      "SELECT * FROM schedules WHERE ended_at IS NULL AND next_fire_at <= ? AND held_since IS NULL ORDER BY next_fire_at, created_at",
    ).all(now) as ScheduleRow[];
    const held = this.held();
    if (!held.length) return due;
    return [...due, ...held].sort(
      (a, b) => (a.next_fire_at ?? Infinity) - (b.next_fire_at ?? Infinity) || a.created_at - b.created_at,
    );
  }

  held(): ScheduleRow[] {
    return sql(
      this.db,
      "SELECT * FROM schedules INDEXED BY schedules_held WHERE ended_at IS NULL AND held_since IS NOT NULL ORDER BY next_fire_at, created_at",
    ).all() as ScheduleRow[];
  }

  /** The earliest due time of a schedule not held (the one timer is armed for it). */
  nextDue(): number | null {
    const r = sql(
      this.db,
      "SELECT next_fire_at FROM schedules WHERE ended_at IS NULL AND next_fire_at IS NOT NULL AND held_since IS NULL ORDER BY next_fire_at LIMIT 1",
    ).get() as { next_fire_at: number } | undefined;
    return r?.next_fire_at ?? null;
  }

  /** A schedule this conversation set is held by loop protection. */
  holdsFor(setBy: string): boolean {
    return !!sql(
      this.db,
      "SELECT 1 FROM schedules INDEXED BY schedules_held WHERE set_by = ? AND ended_at IS NULL AND held_since IS NOT NULL LIMIT 1",
    ).get(setBy);
  }

  /** Ends an active schedule; false when it had already ended. */
  end(id: string, reason: EndReason, now: number): boolean {
    return (
      sql(
        this.db,
        "UPDATE schedules SET ended_at = ?, end_reason = ?, next_fire_at = NULL, held_since = NULL WHERE id = ? AND ended_at IS NULL",
      ).run(now, reason, id).changes > 0
    );
  }

  /** Ends every active schedule firing into or set by a conversation; returns their ids. */
  endForSession(sessionId: string, reason: EndReason, now: number): string[] {
    const ids = (
      sql(this.db, "SELECT id FROM schedules WHERE ended_at IS NULL AND (session_id = ? OR set_by = ?)").all(
        sessionId,
        sessionId,
      ) as { id: string }[]
    ).map((r) => r.id);
    for (const id of ids) this.end(id, reason, now);
    return ids;
  }

  update(
    id: string,
    patch: Partial<
      Pick<
        ScheduleRow,
        | "next_fire_at"
        | "last_fired_at"
        | "fired_count"
        | "skipped_count"
        | "last_turn_id"
        | "held_since"
        | "ended_at"
        | "end_reason"
      >
    >,
  ): void {
    const keys = Object.keys(patch);
    if (!keys.length) return;
    sql(this.db, `UPDATE schedules SET ${keys.map((k) => `${k} = @${k}`).join(", ")} WHERE id = @id`).run({
      ...patch,
      id,
    });
  }
}
