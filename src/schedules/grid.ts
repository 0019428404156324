import { MINUTE } from "../core/clock.ts";

/** The first grid time (first + k·every, k ≥ 0) strictly after `now`. A repeating schedule
 * keeps this grid whatever happens: late firings and downtime never shift it (seed §10). */
export function nextGridTime(first: number, everyMinutes: number, now: number): number {
  const every = everyMinutes * MINUTE;
  if (now < first) return first;
  return first + (Math.floor((now - first) / every) + 1) * every;
}
