import { z } from "zod";
import type { ActionDef } from "./types.ts";
import { listContext, sessionEntry } from "../sessions/views.ts";
import type { SessionRow } from "../sessions/types.ts";
import type { Db } from "../store/db.ts";
import type { Statement } from "better-sqlite3";

// Prepared once per database, not on every call.
const prepared = new WeakMap<Db, { active: Statement; all: Statement }>();
function statements(db: Db): { active: Statement; all: Statement } {
  let s = prepared.get(db);
  if (!s) {
    const sql = (all: boolean) => `SELECT * FROM sessions WHERE deleted_at IS NULL ${all ? "" : "AND archived_at IS NULL"} ORDER BY last_activity_at DESC`;
    s = { active: db.prepare(sql(false)), all: db.prepare(sql(true)) };
    prepared.set(db, s);
  }
  return s;
}

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
    const rows = statements(relay.db)[all ? "all" : "active"].all() as SessionRow[];
    const lc = listContext(relay, rows);
    const sessions = rows.map((s) => sessionEntry(relay, s, lc));
    const working = sessions.filter((s) => s.state !== "idle").length;
    return { summary: `list_sessions → ${relay.name}: ${sessions.length} sessions, ${working} working`, sessions };
  },
};
