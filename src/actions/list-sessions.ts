import { defineAction } from "./define.ts";
import { checkProvider, LIST_LIMIT_DEFAULT, listArgs } from "../sessions/list-query.ts";

const TAIL = "Nothing was listed.";

export const listSessions = defineAction({
  name: "list_sessions",
  since: "0.9.4",
  write: false,
  level: "read",
  nothing: TAIL,
  args: listArgs,
  handler({ identity, sessionReads, groups }, { scope, limit, cursor, query, provider, state, group }) {
    const page = sessionReads.page(
      {
        all: scope === "all",
        limit: limit ?? LIST_LIMIT_DEFAULT,
        cursor,
        query,
        provider: provider ? checkProvider(provider, TAIL) : undefined,
        state,
        groupId: group ? groups.find(group, TAIL).id : undefined,
      },
      TAIL,
    );
    const lc = sessionReads.listContext(page.rows);
    const sessions = page.rows.map((s) => sessionReads.entry(s, lc));
    const working = sessions.filter((s) => s.state !== "idle").length;
    const more = page.nextCursor ? "; more on the next page (pass nextCursor)" : "";
    return {
      summary: `list_sessions → ${identity.name}: ${sessions.length} of ${page.total} sessions, ${working} working${more}`,
      sessions,
      total: page.total,
      nextCursor: page.nextCursor,
    };
  },
});
