import { listPage, type ListQuery, type ListRow } from "./list-query.ts";
import { listContext, sessionEntry, type ListContext, type ViewDeps } from "./views.ts";
import { startedBy } from "./started-by.ts";
import { latestTurn } from "./latest-turn.ts";
import { usageRowsSince } from "./usage-rows.ts";

/** The sessions domain's reads beyond the store, their deps bound once (issue 19), so the
 * action path holds no database: list pages and their entries, the sessions a conversation
 * started, a session's latest turn, the usage agents reported. */
export function sessionReads(d: ViewDeps) {
  return {
    page: (q: ListQuery, tail: string) => listPage(d.db, q, tail),
    listContext: (rows?: ListRow[]) => listContext(d, rows),
    entry: (s: ListRow, lc?: ListContext) => sessionEntry(d, s, lc),
    startedBy: (callerId: string) => startedBy(d.db, callerId),
    latestTurn: (sessionId: string) => latestTurn(d.db, sessionId),
    usageSince: (since: number) => usageRowsSince(d.db, since),
  };
}

export type SessionReads = ReturnType<typeof sessionReads>;
