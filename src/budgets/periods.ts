import { Temporal } from "temporal-polyfill";

// Days and months in the relay's time zone (contract §10.4: the system's `TZ`). A day is
// from one local midnight to the next, 23 or 25 hours long on a night the clocks change;
// a month from the 1st's local midnight. A Temporal conversion costs ~200 µs here, so each
// kind of period keeps the range of the last instant it was asked about: the send path's
// check and the ledger ask about "now" again and again, and that is a comparison.

export type Period = "day" | "month" | "total";

export interface Span {
  /** `d:YYYY-MM-DD`, `m:YYYY-MM` or `t`: the key running totals and notices are kept under. */
  key: string;
  start: number;
  /** The first instant of the next period (Infinity for total). */
  end: number;
}

const TOTAL: Span = { key: "t", start: -Infinity, end: Infinity };

/** The system's zone as Node sees `TZ`; UTC when it names none Temporal knows. */
export function systemZone(): string {
  return validZone(Temporal.Now.timeZoneId()) ?? "UTC";
}

function validZone(tz: string): string | null {
  try {
    return Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(tz).timeZoneId;
  } catch {
    return null;
  }
}

export class Periods {
  private day: Span = { key: "", start: 0, end: 0 };
  private month: Span = { key: "", start: 0, end: 0 };

  constructor(readonly zone: string) {
    if (!validZone(zone)) throw new Error(`unknown time zone ${zone}`);
  }

  span(period: Period, at: number): Span {
    if (period === "total") return TOTAL;
    if (period === "day") {
      if (at >= this.day.start && at < this.day.end) return this.day;
      return (this.day = this.compute("day", at));
    }
    if (at >= this.month.start && at < this.month.end) return this.month;
    return (this.month = this.compute("month", at));
  }

  /** `YYYY-MM-DD` of the local day holding `at`. */
  dayOf(at: number): string {
    return this.span("day", at).key.slice(2);
  }

  private compute(period: "day" | "month", at: number): Span {
    const here = Temporal.Instant.fromEpochMilliseconds(at).toZonedDateTimeISO(this.zone);
    // startOfDay() picks the first instant of the day, also where midnight itself is skipped.
    const first = period === "day" ? here.startOfDay() : here.with({ day: 1 }).startOfDay();
    const next = (period === "day" ? first.add({ days: 1 }) : first.add({ months: 1 })).startOfDay();
    const date = first.toPlainDate().toString();
    return {
      key: period === "day" ? `d:${date}` : `m:${date.slice(0, 7)}`,
      start: first.epochMilliseconds,
      end: next.epochMilliseconds,
    };
  }
}
