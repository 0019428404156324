// A relay event that no bus event stands for (a domain's own news, e.g. worktrees' `overlap`,
// contract §10.1) raised for the watchers of one session: written once per watcher by its key,
// like every captured event, and delivered as `[relay event] ` + line.
import type { Capture } from "./capture.ts";
import type { SubscriptionStore } from "./subscriptions.ts";
import type { EventType } from "./types.ts";

export interface RaiseDeps {
  subs: Pick<SubscriptionStore, "watching">;
  capture: Pick<Capture, "capture">;
  now(): number;
}

/** Raises `type` for the watchers of `sessionId` but those in `skip`; answers the watchers told. */
export function raiseFor(d: RaiseDeps, sessionId: string, e: { key: string; type: EventType; line: string }, skip: ReadonlySet<string> = new Set()): string[] {
  const subs = d.subs.watching(sessionId).filter((s) => !skip.has(s.watcher));
  return d.capture.capture({ key: e.key, type: e.type, sessionId, line: e.line, at: d.now() }, subs);
}
