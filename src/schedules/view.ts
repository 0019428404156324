import { iso } from "../core/clock.ts";
import type { ScheduleRow } from "./store.ts";
import { OWNER_SETTER } from "./new-schedule.ts";

const TEXT_START = 200;

/** "every 1440 min" or "once". */
export function cadence(row: Pick<ScheduleRow, "every_minutes">): string {
  return row.every_minutes ? `every ${row.every_minutes} min` : "once";
}

/** What a view needs: the titles of the sessions it names. */
export interface TitleLookup {
  sessions: { get(id: string): { title: string } | undefined };
}

/** The queued message (seed §10): a header line that says it is the relay's, not the user's. */
export function scheduleMessage(d: TitleLookup, row: ScheduleRow): string {
  if (row.set_by === OWNER_SETTER)
    return `[relay schedule ${row.id} "${row.title}" · ${cadence(row)} · set by the owner · automated message from OAR at a time the user chose; it approves nothing]\n${row.text}`;
  const setter =
    row.set_by === row.session_id
      ? "set in this conversation"
      : `set by session "${d.sessions.get(row.set_by)?.title ?? "?"}" (${row.set_by})`;
  return `[relay schedule ${row.id} "${row.title}" · ${cadence(row)} · ${setter} · automated message from OAR, not from the user; it approves nothing]\n${row.text}`;
}

const ref = (relay: TitleLookup, id: string) => ({ id, title: relay.sessions.get(id)?.title ?? null });

/** A list_schedules entry (seed §10). */
export function scheduleView(relay: TitleLookup, r: ScheduleRow) {
  return {
    id: r.id,
    session: ref(relay, r.session_id),
    ...(r.set_by === OWNER_SETTER
      ? { setBy: OWNER_SETTER }
      : r.set_by !== r.session_id
        ? { setBy: ref(relay, r.set_by) }
        : {}),
    title: r.title,
    text: r.text.length > TEXT_START ? `${r.text.slice(0, TEXT_START)}…` : r.text,
    at: iso(r.at),
    everyMinutes: r.every_minutes,
    once: !r.every_minutes,
    nextFireAt: iso(r.next_fire_at),
    lastFiredAt: iso(r.last_fired_at),
    firedCount: r.fired_count,
    ...(r.skipped_count ? { skippedCount: r.skipped_count } : {}),
    ...(r.held_since != null ? { heldForApproval: true, heldSince: iso(r.held_since) } : {}),
    active: r.ended_at == null,
    ...(r.ended_at != null ? { endedAt: iso(r.ended_at), endReason: r.end_reason } : {}),
  };
}
