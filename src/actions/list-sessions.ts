import { z } from "zod";
import type { ActionDef } from "./types.ts";
import { listContext, sessionEntry } from "../sessions/views.ts";

export const listSessions: ActionDef = {
  name: "list_sessions",
  since: "0.9.4",
  write: false,
  level: "read",
  args: {
    scope: z.enum(["active", "all"]).describe('"active" (default): sessions not archived; "all": archived ones too.'),
  },
  handler(ctx, args) {
    const { relay } = ctx;
    const all = args.scope === "all";
    const rows = relay.sessions.list(all);
    const lc = listContext(relay, rows);
    const sessions = rows.map((s) => sessionEntry(relay, s, lc));
    const working = sessions.filter((s) => s.state !== "idle").length;
    return { summary: `list_sessions → ${relay.name}: ${sessions.length} sessions, ${working} working`, sessions };
  },
};
