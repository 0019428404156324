// The relay's one clock (contract §7). Every "now" and every timer in the relay reads it.
// The real clock arms one Node timer for the earliest due entry; the manual clock only
// moves when told to, and a step fires everything that fell due, in time order.

export type Cancel = () => void;

interface Entry {
  at: number;
  seq: number;
  fn: () => void;
}

export interface Clock {
  readonly manual: boolean;
  now(): number;
  /** Runs fn once the clock reaches `at` (epoch ms). Returns a cancel function. */
  at(at: number, fn: () => void): Cancel;
  /** Resolves once the clock reaches `at`, or when the signal aborts. */
  until(at: number, signal?: AbortSignal): Promise<void>;
  /** Where the clock is going: the end of a manual step in progress, else now. Repeating work
   * that would only be skipped on every tick until then (a schedule whose last message still
   * waits) jumps there at once instead of playing out a year minute by minute. */
  horizon(): number;
}

abstract class TimerQueue implements Clock {
  abstract readonly manual: boolean;
  abstract now(): number;
  horizon(): number {
    return this.now();
  }
  protected entries: Entry[] = [];
  private seq = 0;

  at(at: number, fn: () => void): Cancel {
    const entry: Entry = { at, seq: this.seq++, fn };
    // Sorted insert (binary search: thousands of timers are armed at start-up) after every
    // entry due at the same time, which keeps firing order stable for equal due times.
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid].at <= at) lo = mid + 1;
      else hi = mid;
    }
    this.entries.splice(lo, 0, entry);
    this.changed();
    return () => {
      const j = this.entries.indexOf(entry);
      if (j >= 0) {
        this.entries.splice(j, 1);
        this.changed();
      }
    };
  }

  until(at: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const cancel = this.at(at, () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
      const onAbort = () => {
        cancel();
        resolve();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Fires every entry due at or before `upTo`, earliest first. */
  protected fireDue(upTo: number): void {
    while (this.entries.length && this.entries[0].at <= upTo) this.fire(this.entries.shift()!);
  }

  protected fire(entry: Entry): void {
    try {
      entry.fn();
    } catch (err) {
      console.error("[clock] timer failed:", err);
    }
  }

  protected changed(): void {}
}

export class RealClock extends TimerQueue {
  readonly manual = false;
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Infinity;

  now(): number {
    return Date.now();
  }

  protected changed(): void {
    const next = this.entries[0]?.at ?? Infinity;
    if (next === this.armedFor) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = next;
    if (next === Infinity) return;
    // Node timers overflow past ~24.8 days; re-arm in steps.
    const delay = Math.min(Math.max(0, next - Date.now()), 2 ** 31 - 1);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.armedFor = Infinity;
      this.fireDue(Date.now());
      this.changed();
    }, delay);
    this.timer.unref();
  }
}

export class ManualClock extends TimerQueue {
  readonly manual = true;
  private current: number;

  constructor(start: number) {
    super();
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): Promise<number> {
    return this.set(this.current + ms);
  }

  /** Moves to `t` (earlier instants too); work due at or before `t` runs in time order.
   * Each entry fires with the clock at its own due time, and what it set going (promise
   * chains, work it schedules) runs before the next entry fires: a step of an hour plays
   * the hour out in order, as the real clock would, instead of jumping to its end. */
  async set(t: number): Promise<number> {
    this.target = t;
    try {
      while (this.entries.length && this.entries[0].at <= t) {
        const entry = this.entries.shift()!;
        if (entry.at > this.current) this.current = entry.at;
        this.fire(entry);
        await new Promise<void>((r) => setImmediate(r));
      }
    } finally {
      this.target = null;
    }
    this.current = t;
    return this.current;
  }

  private target: number | null = null;

  horizon(): number {
    return this.target !== null && this.target > this.current ? this.target : this.current;
  }

  protected changed(): void {
    // Timers added for an instant already reached fire on the next tick, as a real clock would.
    if (this.entries.length && this.entries[0].at <= this.current) {
      queueMicrotask(() => this.fireDue(this.current));
    }
  }
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** "YYYY-MM-DDT" of a day (days since the epoch): few days recur, so they are kept. */
const dayPrefixes = new Map<number, string>();

/** Epoch ms as ISO 8601 (`Date#toISOString`, exactly). Every view formats its times with it
 * (a list page: 50 of them); a Date object each cost ~1.5 µs, the day's text kept and the
 * time of day formatted by arithmetic cost a fraction of that. */
export const iso = (ms: number | null | undefined): string | null => {
  if (ms == null) return null;
  if (!Number.isInteger(ms) || ms < 0 || ms >= 253402300800000) return new Date(ms).toISOString(); // before 1970, after 9999, fractions: as Date says
  const day = Math.floor(ms / DAY);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    if (dayPrefixes.size >= 4096) dayPrefixes.clear();
    prefix = new Date(day * DAY).toISOString().slice(0, 11);
    dayPrefixes.set(day, prefix);
  }
  const t = ms - day * DAY;
  const h = Math.floor(t / HOUR);
  const m = Math.floor((t % HOUR) / MINUTE);
  const sec = Math.floor((t % MINUTE) / 1000);
  const milli = t % 1000;
  return `${prefix}${h < 10 ? "0" : ""}${h}:${m < 10 ? "0" : ""}${m}:${sec < 10 ? "0" : ""}${sec}.${milli < 10 ? "00" : milli < 100 ? "0" : ""}${milli}Z`;
};
