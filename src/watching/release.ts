// When a subscription lets an event through (seed §9 "Fewer wake-ups"): at once, or at
// its next digest, moved to the end of its quiet hours when that falls inside them. An
// event several subscriptions receive goes when the first of them lets it through.
import type { Sub } from "./types.ts";
import type { SubscriptionStore } from "./subscriptions.ts";

export interface Release {
  at: number;
  hold: "digest" | "quiet" | null;
  sub: Sub;
}

/** The next digest: N minutes after the previous one (or the subscription's start), on
 * that grid, and never earlier than `t`. */
export function nextDigestAt(anchor: number, minutes: number, t: number): number {
  const n = minutes * 60_000;
  return anchor + Math.max(1, Math.ceil((t - anchor) / n)) * n;
}

export function releaseFor(store: SubscriptionStore, sub: Sub, t: number, urgent: boolean): Release {
  if (urgent) return { at: t, hold: null, sub };
  let at = t;
  let hold: Release["hold"] = null;
  if (sub.digestMinutes) {
    at = nextDigestAt(sub.row.digest_anchor_at, sub.digestMinutes, t);
    hold = "digest";
  }
  if (sub.quiet) {
    const w = store.window(sub.quiet);
    if (w.inside(at)) {
      at = w.shift(at);
      hold = "quiet";
    }
  }
  return { at, hold, sub };
}

/** The earliest release among the subscriptions that receive it; a plain one wins at once. */
export function earliest(store: SubscriptionStore, subs: Sub[], t: number, urgent: boolean): Release {
  let best: Release | null = null;
  for (const s of subs) {
    const r = releaseFor(store, s, t, urgent);
    if (!best || r.at < best.at || (r.at === best.at && best.hold && !r.hold)) best = r;
    if (!r.hold) break;
  }
  return best!;
}
