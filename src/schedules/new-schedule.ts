import { iso } from "../core/clock.ts";
import { RelayError } from "../core/errors.ts";

// What a new schedule asks for, checked the same way for an agent (relay_tool `schedule`)
// and for the owner (POST /api/schedules): the same rules and the same words.

export const NOTHING_SCHEDULED = "Nothing was scheduled.";
export const MAX_EVERY_MINUTES = 366 * 24 * 60;
/** `set_by` of a schedule the owner set (contract §10.5: `setBy` reads `owner`). */
export const OWNER_SETTER = "owner";

export interface ScheduleAsk {
  text?: unknown;
  title?: unknown;
  at?: unknown;
  every_minutes?: unknown;
}

export interface CheckedSchedule {
  text: string;
  title: string;
  at: number | null;
  everyMinutes: number | null;
  /** "every 60 min from …" or "once at …", for cards and answers. */
  when: string;
}

const invalid = (text: string) => new RelayError("REMOTE_RELAY_INVALID_INPUT", `${text} ${NOTHING_SCHEDULED}`);

export function checkSchedule(a: ScheduleAsk, now: number): CheckedSchedule {
  if (typeof a.text !== "string" || !a.text) throw invalid("schedule needs text: the prompt to queue when due.");
  if (a.text.length > 200_000) throw invalid("text is at most 200,000 characters.");
  if (a.at === undefined && a.every_minutes === undefined)
    throw invalid("schedule needs at (an ISO time) or every_minutes, or both.");
  if (a.title !== undefined && (typeof a.title !== "string" || !a.title.trim() || a.title.length > 200))
    throw invalid("title must be text of 1 to 200 characters.");
  if (
    a.every_minutes !== undefined &&
    (typeof a.every_minutes !== "number" ||
      !Number.isInteger(a.every_minutes) ||
      a.every_minutes < 1 ||
      a.every_minutes > MAX_EVERY_MINUTES)
  ) {
    throw invalid(
      `every_minutes must be a whole number of minutes from 1 to ${MAX_EVERY_MINUTES} (got ${JSON.stringify(a.every_minutes)?.slice(0, 40)}).`,
    );
  }
  const everyMinutes = (a.every_minutes as number | undefined) ?? null;
  let at: number | null = null;
  if (a.at !== undefined) {
    at = typeof a.at === "string" ? Date.parse(a.at) : NaN;
    if (Number.isNaN(at))
      throw invalid(`at must be an ISO time such as 2026-11-02T02:00:00Z (got ${JSON.stringify(a.at)?.slice(0, 60)}).`);
    if (!everyMinutes && at <= now) throw invalid(`at ${iso(at)} has already passed (now ${iso(now)}).`);
  }
  const title = typeof a.title === "string" ? a.title : defaultTitle(a.text);
  const when = everyMinutes ? `every ${everyMinutes} min${at ? ` from ${iso(at)}` : ""}` : `once at ${iso(at)}`;
  return { text: a.text, title, at, everyMinutes, when };
}

function defaultTitle(text: string): string {
  const line =
    text
      .split("\n")
      .find((l) => l.trim())
      ?.trim() ?? "Scheduled prompt";
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
