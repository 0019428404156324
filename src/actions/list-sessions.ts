import type { ActionDef } from "./types.ts";
import { listContext, sessionEntry } from "../sessions/views.ts";
import { checkProvider, LIST_LIMIT_DEFAULT, listArgs, listPage } from "../sessions/list-query.ts";
import { findGroup } from "../groups/find.ts";
import type { SessionState } from "../sessions/types.ts";

const TAIL = "Nothing was listed.";

export const listSessions: ActionDef = {
  name: "list_sessions",
  since: "0.9.4",
  write: false,
  level: "read",
  args: listArgs,
  handler(ctx, args) {
    const { relay } = ctx;
    const page = listPage(relay.db, {
      all: args.scope === "all",
      limit: (args.limit as number | undefined) ?? LIST_LIMIT_DEFAULT,
      cursor: args.cursor as string | undefined,
      query: args.query as string | undefined,
      provider: args.provider ? checkProvider(args.provider as string, TAIL) : undefined,
      state: args.state as SessionState | undefined,
      groupId: args.group ? findGroup(relay, args.group as string, TAIL).id : undefined,
    }, TAIL);
    const lc = listContext(relay, page.rows);
    const sessions = page.rows.map((s) => sessionEntry(relay, s, lc));
    const working = sessions.filter((s) => s.state !== "idle").length;
    const more = page.nextCursor ? "; more on the next page (pass nextCursor)" : "";
    return { summary: `list_sessions → ${relay.name}: ${sessions.length} of ${page.total} sessions, ${working} working${more}`, sessions, total: page.total, nextCursor: page.nextCursor };
  },
};
