// How a subscription shows in subscribe's result and in list_subscriptions (seed §9,
// contract §8 "An ended subscription").
import { sql } from "./sql.ts";
import type { Db } from "../store/db.ts";
import { iso } from "../core/clock.ts";
import { fromJson } from "../store/db.ts";
import type { SubRow } from "./types.ts";
import type { SubscriptionStore } from "./subscriptions.ts";

/** What a view reads besides the subscription: its held events, and the titles of the sessions it names. */
export interface ViewDeps {
  db: Db;
  sessions: { get(id: string): { title: string } | undefined };
}

export function subscriptionView(d: ViewDeps, store: SubscriptionStore, row: SubRow) {
  store.flushWrites();
  const sub = store.parse(row);
  const exclude = [...sub.exclude];
  const held = sql(
    d.db,
    "SELECT COUNT(*) AS n, MIN(release_at) AS at FROM watch_events WHERE watcher = ? AND state IN ('held', 'ready') AND state = 'held' AND hold_sub = ? AND capped = 0",
  ).get(row.watcher, row.id) as { n: number; at: number | null };
  const active = row.ended_at == null;
  return {
    id: row.id,
    watcher: row.watcher,
    ...(row.relay !== "this" ? { relay: row.relay } : {}),
    scope: sub.all ? "all" : "sessions",
    sessions: sub.all ? "all" : sub.sessions.map((id) => ({ id, title: d.sessions.get(id)?.title ?? null })),
    events: [...sub.events],
    once: sub.once,
    match: sub.match,
    stalledMinutes: sub.stalledMinutes,
    heartbeatMinutes: row.heartbeat_minutes,
    ...(row.digest_minutes ? { digestMinutes: row.digest_minutes } : {}),
    ...(sub.quiet ? { quietHours: sub.quiet } : {}),
    ...(exclude.length ? { exclude } : {}),
    active,
    createdAt: iso(row.created_at),
    ...(active
      ? {}
      : {
          endedAt: iso(row.ended_at),
          endReason: row.end_reason,
          ...(row.transferred_to ? { transferredTo: row.transferred_to } : {}),
        }),
    // An ended subscription says what it holds only while its last event is still held.
    ...(active || held.n ? { heldCount: held.n, nextDeliveryAt: iso(held.at) } : {}),
  };
}

export type SubscriptionView = ReturnType<typeof subscriptionView>;

export const eventsOf = (row: SubRow) => fromJson<string[] | null>(row.events_json, null);
