// A relay event that no bus event stands for (a domain's own news, e.g. worktrees' `overlap`,
// contract §10.1) raised for the watchers of one session: written once per watcher by its key,
// like every captured event, and delivered as `[relay event] ` + line.
import type { EventType, Happening } from "./types.ts";

/** What it uses of watching (watching.ts: `subs`, `capture`), by shape. */
export interface RaiseDeps<S extends { watcher: string }> {
  subs: { watching(sessionId: string): S[] };
  capture: { capture(h: Happening, candidates: S[]): string[] };
  now(): number;
}

/** Raises `type` for the watchers of `sessionId` but those in `skip`; answers the watchers told. */
export function raiseFor<S extends { watcher: string }>(
  d: RaiseDeps<S>,
  sessionId: string,
  e: { key: string; type: EventType; line: string },
  skip: ReadonlySet<string> = new Set(),
): string[] {
  const subs = d.subs.watching(sessionId).filter((s) => !skip.has(s.watcher));
  return d.capture.capture({ key: e.key, type: e.type, sessionId, line: e.line, at: d.now() }, subs);
}
