import { listPage, type ListQuery, type ListRow } from "./list-query.ts";
import { listContext, sessionEntry, type ListContext, type ViewDeps } from "./views.ts";
import { startedBy } from "./started-by.ts";
import { latestTurn } from "./latest-turn.ts";
import { usageRowsSince } from "./usage-rows.ts";
import { outcomes } from "./list-outcome.ts";
import { searchPage } from "./search-index.ts";
import { usageByDay } from "./usage-history.ts";
import { stoppedTurns } from "./stopped-turns.ts";

/** The sessions domain's reads beyond the store, their deps bound once (issue 19), so the
 * action path and the owner API hold no database: list pages and their entries, the owner
 * list's outcomes, full-text search, the sessions a conversation started, a session's latest
 * and stopped turns, the usage agents reported (as rows and per day). */
export function sessionReads(d: ViewDeps) {
  return {
    page: (q: ListQuery, tail: string) => listPage(d.db, q, tail),
    listContext: (rows?: ListRow[]) => listContext(d, rows),
    entry: (s: ListRow, lc?: ListContext) => sessionEntry(d, s, lc),
    outcomes: (ids: string[]) => outcomes(d.db, ids),
    search: (match: string, limit: number, after: { at: number; id: string } | null) =>
      searchPage(d.db, match, limit, after),
    startedBy: (callerId: string) => startedBy(d.db, callerId),
    latestTurn: (sessionId: string) => latestTurn(d.db, sessionId),
    stoppedTurns: (sessionId: string, limit: number) => stoppedTurns(d.db, sessionId, limit),
    usageSince: (since: number) => usageRowsSince(d.db, since),
    usageByDay: (since: number, session?: string) => usageByDay(d.db, since, session),
  };
}

export type SessionReads = ReturnType<typeof sessionReads>;
