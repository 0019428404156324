// quiet_hours (seed §9 "Fewer wake-ups"): a daily local-time window in an IANA zone. The
// window follows the zone's clock: membership is by local wall time, except that on a night
// the clock goes back and `to` occurs twice, the window ends at the first `to` and is not
// entered again in the repeated hour; on a night the clock jumps over `to`, it ends at the
// jump. (Known limit, as specified: a `from` inside the repeated hour starts the window on
// the first pass, and on the second pass the minutes before `from` count as outside.)
// Every instant is chosen explicitly with Temporal's disambiguation, never by default.
import { Temporal } from "temporal-polyfill";
import { z } from "zod";
import { RelayError } from "../core/errors.ts";
import { canonicalZone } from "../core/time-zone.ts";
import { refusalWords, withWords } from "../core/refusals.ts";

export interface QuietHours {
  from: string;
  to: string;
  tz: string;
}

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
const NOTHING = "Nothing was subscribed.";
const TIMES = 'quiet_hours from and to must be times of day as "HH:MM" (00:00 to 23:59)';
const notZone = (tz: unknown) =>
  `quiet_hours tz "${typeof tz === "string" ? tz.slice(0, 60) : JSON.stringify(tz ?? null)}" is not an IANA time zone (for example "Europe/Berlin", "America/New_York", "UTC")`;
/** A field left empty ("" or null): all three empty is no quiet hours. */
const field = (error: z.core.$ZodErrorMap) => z.string({ error }).nullish();

/** subscribe's quiet_hours: a daily window in an IANA zone, or null when every field is empty.
 * Each issue carries its refusal sentence; a key it does not take is told before the rest. */
export const QuietHoursArg = withWords(
  z
    .strictObject(
      { from: field(() => TIMES), to: field(() => TIMES), tz: field((i) => notZone(i.input)) },
      {
        error: (i) =>
          i.code === "unrecognized_keys"
            ? `quiet_hours takes from, to and tz only (got ${i.keys.slice(0, 5).join(", ")})`
            : 'quiet_hours must be an object { "from": "HH:MM", "to": "HH:MM", "tz": IANA time zone }',
      },
    )
    .transform((q, ctx): QuietHours | null => {
      if (!q.from && !q.to && !q.tz) return null;
      const refuse = (message: string) => {
        ctx.addIssue({ code: "custom", message });
        return z.NEVER;
      };
      if (!HHMM.test(q.from ?? "") || !HHMM.test(q.to ?? "")) return refuse(TIMES);
      if (q.from === q.to) return refuse("quiet_hours from and to must differ");
      const tz = canonicalZone(q.tz);
      return tz ? { from: q.from!, to: q.to!, tz } : refuse(notZone(q.tz));
    }),
  (_, issues) => `${(issues.find((i) => i.code === "unrecognized_keys") ?? issues[0]).message}.`,
);

/** Validates quiet_hours given as anything; null when absent or every field is empty. */
export function parseQuietHours(v: unknown): QuietHours | null {
  if (v == null) return null;
  const r = QuietHoursArg.safeParse(v);
  if (r.success) return r.data;
  throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `${refusalWords(QuietHoursArg, v, r.error)} ${NOTHING}`);
}

// The zone's canonical IANA id (core/time-zone.ts: the notify setting checks zones too).
export { canonicalZone } from "../core/time-zone.ts";

export const quietLabel = (q: QuietHours): string => `${q.from}\u2013${q.to} ${q.tz}`;

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));

/** Answers "is this instant inside?" and "when does this window end?" for one quiet_hours. */
export class QuietWindow {
  private from: number;
  private to: number;
  private tfrom: Temporal.PlainTime;
  private tto: Temporal.PlainTime;
  /** The last answer, valid for [lo, hi): the state only changes at a boundary or a clock change. */
  private cache: { lo: number; hi: number; inside: boolean } | null = null;

  constructor(readonly q: QuietHours) {
    this.from = minutes(q.from);
    this.to = minutes(q.to);
    this.tfrom = Temporal.PlainTime.from(q.from);
    this.tto = Temporal.PlainTime.from(q.to);
  }

  inside(t: number): boolean {
    const c = this.cache;
    if (c && t >= c.lo && t < c.hi) return c.inside;
    const inside = this.compute(t);
    this.cache = { lo: t, hi: inside ? this.end(t) : this.nextStart(t), inside };
    return inside;
  }

  /** `t` when outside, else the instant the window containing `t` ends. */
  shift(t: number): number {
    // Inside, the cached answer lasts exactly until the window's end.
    return this.inside(t) ? this.cache!.hi : t;
  }

  private zoned(t: number): Temporal.ZonedDateTime {
    return Temporal.Instant.fromEpochMilliseconds(t).toZonedDateTimeISO(this.q.tz);
  }

  private compute(t: number): boolean {
    const z = this.zoned(t);
    const wall = z.hour * 60 + z.minute;
    const naive = this.from < this.to ? wall >= this.from && wall < this.to : wall >= this.from || wall < this.to;
    if (!naive) return false;
    // The repeated hour after the first `to`: the window ended there and is not entered again.
    const to = this.occurrences(z.toPlainDate(), this.tto);
    return !(to.second !== null && t >= to.first && t < to.second);
  }

  /** The instants a local time occurs on a date: first (earlier) pass, the second pass of a
   * repeated hour, or for a time the clock jumps over, the moment of the jump. */
  private occurrences(date: Temporal.PlainDate, time: Temporal.PlainTime): { first: number; second: number | null } {
    const pdt = date.toPlainDateTime(time);
    const earlier = pdt.toZonedDateTime(this.q.tz, { disambiguation: "earlier" });
    if (!earlier.toPlainDateTime().equals(pdt)) {
      const jump = earlier.getTimeZoneTransition("next");
      return { first: jump ? jump.epochMilliseconds : earlier.epochMilliseconds, second: null };
    }
    const later = pdt.toZonedDateTime(this.q.tz, { disambiguation: "later" });
    return {
      first: earlier.epochMilliseconds,
      second: later.epochMilliseconds !== earlier.epochMilliseconds ? later.epochMilliseconds : null,
    };
  }

  /** When the window containing `t` ends (t inside). */
  private end(t: number): number {
    const z = this.zoned(t);
    const wall = z.hour * 60 + z.minute;
    const date = this.from < this.to || wall < this.to ? z.toPlainDate() : z.toPlainDate().add({ days: 1 });
    let end = this.occurrences(date, this.tto).first;
    // A clock change inside the window can end it earlier (a `from` in the repeated hour).
    const change = z.getTimeZoneTransition("next")?.epochMilliseconds;
    if (change !== undefined && change > t && change < end && !this.compute(change)) end = change;
    return end;
  }

  /** The next instant after `t` (outside) at which the window may start. */
  private nextStart(t: number): number {
    const z = this.zoned(t);
    let best = Infinity;
    for (const d of [z.toPlainDate(), z.toPlainDate().add({ days: 1 })]) {
      const o = this.occurrences(d, this.tfrom);
      for (const x of [o.first, o.second]) if (x !== null && x > t && x < best) best = x;
    }
    const change = z.getTimeZoneTransition("next")?.epochMilliseconds;
    if (change !== undefined && change > t && change < best) best = change;
    return best === Infinity ? t + 86_400_000 : best;
  }
}
