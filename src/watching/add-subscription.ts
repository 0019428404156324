import { RelayError } from "../core/errors.ts";
import type { Db } from "../store/db.ts";
import type { SubRow } from "./types.ts";
import type { NewSub } from "./subscriptions.ts";
import { MAX_SUBSCRIPTIONS } from "./types.ts";
import { NOTHING } from "./options.ts";

// A subscription written once checked (watching/options.ts): the limit of 20 per watcher
// (contract §6), in the same words for relay_tool `subscribe` and the owner's
// POST /api/subscriptions, checked again inside the write's transaction.

export interface AddSubscriptionDeps {
  db: Db;
  clock: { now(): number };
  watch: {
    subs: { held(watcher: string): number; insert(n: NewSub, now: number): SubRow };
    started(row: SubRow): void;
  };
}

const full = (n: number) =>
  new RelayError(
    "REMOTE_RELAY_SUBSCRIPTION_LIMIT",
    `This conversation already holds ${n} subscriptions (at most ${MAX_SUBSCRIPTIONS} at a time); end one with unsubscribe first. ${NOTHING}`,
  );

/** Refuses when the watcher already holds the most it may (`elsewhere`: what a paired relay holds for it). */
export function checkSubscriptionLimit(d: AddSubscriptionDeps, watcher: string, elsewhere = 0): void {
  const held = d.watch.subs.held(watcher) + elsewhere;
  if (held >= MAX_SUBSCRIPTIONS) throw full(held);
}

export function addSubscription(d: AddSubscriptionDeps, sub: NewSub, elsewhere = 0): SubRow {
  const row = d.db.transaction(() => {
    checkSubscriptionLimit(d, sub.watcher, elsewhere);
    return d.watch.subs.insert(sub, d.clock.now());
  })();
  d.watch.started(row);
  return row;
}
