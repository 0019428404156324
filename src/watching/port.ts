// What the watching domain offers the rest of the relay (issue 19): the actions, the owner API
// and pairing use this, never its parts (store, delivery, monitors).
import type { Sub, SubRow, EndReason, EventType, NewEvent } from "./types.ts";
import type { NewSub } from "./subscriptions.ts";
import type { SubscriptionView } from "./views.ts";
import type { UrgentEvent } from "./delivery.ts";
import type { Release } from "./release.ts";

/** The list badges of a session (sessions/views.ts). */
export interface WatchBadges {
  isWatched(sessionId: string): boolean;
  watchingCount(sessionId: string): number;
}

/** No echo (relay_tool.md §9): a watcher waiting on its own prompt gets the reply from the call,
 * not again as a turn_end event. */
export interface NoEcho {
  promptSent(watcher: string, turnId: string): void;
  replyReceived(watcher: string, turnId: string, status: string): void;
}

export interface WatchingPort {
  /** Active subscriptions the watcher holds here and as mirrors on paired relays (but `but`). */
  held(watcher: string, but?: string): number;
  /** Refuses when the watcher holds the most it may (`elsewhere`: what a paired relay holds for it). */
  checkLimit(watcher: string, elsewhere?: number): void;
  /** Writes a checked subscription, the limit checked again in its transaction, and starts it. */
  subscribe(sub: NewSub, elsewhere?: number): SubRow;
  get(id: string): SubRow | undefined;
  /** Active ones and those ended at or after `endedSince`. */
  listFor(watcher: string, endedSince: number): SubRow[];
  /** Every active subscription of the relay: those watching here and those this relay's
   * conversations hold on paired relays (GET /api/subscriptions). */
  active(): SubRow[];
  /** The watcher's active subscriptions here. */
  ofWatcher(watcher: string): Sub[];
  /** Ends them; returns those that were active. What they hold is still delivered when due. */
  end(ids: string[], reason: EndReason): string[];
  /** Moves every active subscription of `from` to `to`. */
  transfer(from: string, to: string, reason?: EndReason): SubRow[];
  /** How a subscription shows in results and the owner API. */
  view(row: SubRow): SubscriptionView;
  noEcho: NoEcho;
  badges: WatchBadges;
  /** An urgent event for one conversation, needing no subscription (delivery.ts). */
  deliverUrgent(watcher: string, event: UrgentEvent): void;
  /** A domain's own event (worktrees' `overlap`) for the watchers of a session but those in
   * `skip`; answers the watchers told (raise.ts). */
  raise(sessionId: string, e: { key: string; type: EventType; line: string }, skip?: ReadonlySet<string>): string[];
}

/** What pairing uses (its event link, mirrors, remote waits; pairing/deps.ts): mirrors of the
 * subscriptions this relay's conversations hold on paired relays, and the events that arrive
 * for them, held and delivered like local ones. */
export interface MirrorPort extends Pick<WatchingPort, "get" | "ofWatcher" | "held" | "end" | "transfer"> {
  /** A stored subscription as the release rules read it. */
  parse(row: SubRow): Sub;
  /** When an event for these subscriptions may go (release.ts). */
  earliest(subs: Sub[], t: number, urgent: boolean): Release;
  /** Writes the mirror of subscription `id` held on paired relay `relay`, in one transaction. */
  insertMirror(sub: NewSub, now: number, id: string, relay: string): void;
  /** The watchers' outboxes: an event that arrived, and sending what is due. */
  delivery: {
    add(watcher: string, e: NewEvent): boolean;
    run(watcher: string): void;
    noteWatcher(watcher: string): void;
  };
}
