import type { Bus } from "../core/bus.ts";
import type { Clock } from "../core/clock.ts";
import type { Db } from "../store/db.ts";
import type { SessionRow } from "../sessions/types.ts";
import type { EventType } from "../watching/types.ts";
import type { QuietHours } from "../watching/quiet-hours.ts";
import type { PairingWatch } from "./deps.ts";
import type { RelayRow } from "./store.ts";

// A subscription on a paired relay has a mirror here (subscriptions.relay = that relay's
// name, same id): the watcher's relay is where its digest, quiet hours and held events live
// (seed §9 "On paired relays"), where list_subscriptions shows it, and what the incoming
// events are matched against. The capture index never holds mirrors: the other relay
// captures.

interface SubView {
  id: string;
  sessions: "all" | { id: string }[];
  exclude?: string[];
  events?: string[];
  once?: boolean;
  match?: string | null;
  stalledMinutes?: number;
  heartbeatMinutes?: number | null;
  digestMinutes?: number;
  quietHours?: QuietHours;
}

export interface MirrorDeps {
  db: Db;
  clock: Clock;
  bus: Pick<Bus, "emit">;
  watch: PairingWatch;
  /** The link to that relay asks for the new subscription's events at once. */
  poke(relay: string): void;
}

export function mirrorSubscribe(
  d: MirrorDeps,
  row: RelayRow,
  caller: SessionRow,
  view: SubView,
  eventsNamed: boolean,
): void {
  const watch = d.watch;
  if (!view?.id || watch.get(view.id)) return;
  const all = view.sessions === "all";
  watch.insertMirror(
    {
      watcher: caller.id,
      all,
      sessions: all ? [] : (view.sessions as { id: string }[]).map((s) => s.id),
      exclude: view.exclude ?? [],
      events: eventsNamed ? ((view.events ?? []) as EventType[]) : null,
      once: !!view.once,
      match: view.match ?? null,
      stalledMinutes: view.stalledMinutes ?? 15,
      heartbeatMinutes: view.heartbeatMinutes ?? null,
      digestMinutes: view.digestMinutes ?? null,
      quiet: view.quietHours ?? null,
    },
    d.clock.now(),
    view.id,
    row.name,
  );
  d.bus.emit({ type: "session.updated", sessionId: caller.id });
  d.poke(row.name);
}

/** After a call on the paired relay changed subscriptions there, the mirrors follow. */
export function mirrorAfter(
  d: MirrorDeps,
  row: RelayRow,
  caller: SessionRow,
  action: string,
  args: Record<string, unknown>,
  result: Record<string, unknown>,
): void {
  if (result.ok === false) return;
  if (action === "subscribe" && result.subscription)
    mirrorSubscribe(d, row, caller, result.subscription as SubView, args.events !== undefined);
  if (action === "transfer_subscriptions" && Array.isArray(result.subscriptions)) {
    for (const v of result.subscriptions as SubView[]) mirrorSubscribe(d, row, caller, v, !!v.events);
  }
  if (action === "unsubscribe" && Array.isArray(result.ended)) {
    const mine = (result.ended as string[]).filter((id) => d.watch.get(id)?.watcher === caller.id);
    if (mine.length) d.watch.end(mine, "unsubscribed");
  }
}
