import { MINUTE } from "../core/clock.ts";

// How a failed delivery is tried again: on the relay clock, with growing waits, six
// attempts in all (about 50 minutes), then given up. An attempt's wait is set before the
// request goes out, so it is also how long a request cut short by a crash waits.

export const DAY_MS = 24 * 60 * MINUTE;
export const MAX_ATTEMPTS = 6;
const WAITS = [15_000, MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE];

/** The wait after attempt `n` (1-based) before the next one. */
export const retryWait = (n: number): number => WAITS[Math.min(n, WAITS.length) - 1];
