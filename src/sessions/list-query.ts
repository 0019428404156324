import { z } from "zod";
import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";
import { RelayError } from "../core/errors.ts";
import { getProvider, providerList } from "../providers/catalog.ts";
import type { SessionRow, SessionState } from "./types.ts";
import { RUNNING_TASK_SESSIONS } from "../tasks/task-store.ts";

// One page of the session list (contract §9.1): keyset paging on (last_activity_at, id),
// most recently active first, so a page costs the same at 10 or 100,000 sessions and a
// cursor stays valid while sessions are added. Only the columns a list entry shows are
// read: no agent tokens, no extra JSON.

export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 200;
/** The owner's page (the web sidebar) may ask for more at once. */
export const OWNER_LIMIT_MAX = 500;

export const SESSION_STATES = ["running_turn", "background_only", "idle"] as const;

/** What a list entry needs of a session row. */
export type ListRow = Pick<
  SessionRow,
  | "id"
  | "title"
  | "provider"
  | "model"
  | "effort"
  | "mode"
  | "cwd"
  | "repo"
  | "branch"
  | "via_session"
  | "may_create_sessions"
  | "group_id"
  | "message_count"
  | "last_activity_at"
  | "archived_at"
>;
const COLUMNS =
  "id, title, provider, model, effort, mode, cwd, repo, branch, via_session, may_create_sessions, group_id, message_count, last_activity_at, archived_at";
/** A page's rows are read as arrays (the statement in raw mode) and made into objects of one
 * shape here: better-sqlite3 builds a row object key by key, which was most of a page's cost. */
type Raw = [
  string,
  string,
  string,
  string,
  string | null,
  ListRow["mode"],
  string,
  string | null,
  string | null,
  string | null,
  number,
  string | null,
  number,
  number,
  number | null,
];
const fromRaw = (r: Raw): ListRow => ({
  id: r[0],
  title: r[1],
  provider: r[2],
  model: r[3],
  effort: r[4],
  mode: r[5],
  cwd: r[6],
  repo: r[7],
  branch: r[8],
  via_session: r[9],
  may_create_sessions: r[10],
  group_id: r[11],
  message_count: r[12],
  last_activity_at: r[13],
  archived_at: r[14],
});

export interface ListQuery {
  all: boolean;
  limit: number;
  cursor?: string;
  query?: string;
  provider?: string;
  state?: SessionState;
  /** A group id, already resolved from an id or name by the caller. */
  groupId?: string;
}

export interface ListPage {
  rows: ListRow[];
  total: number;
  nextCursor: string | null;
}

/** The arguments list_sessions takes (also the owner API's query parameters). */
export const listArgs = {
  scope: z.enum(["active", "all"]).describe('"active" (default): sessions not archived; "all": archived ones too.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(LIST_LIMIT_MAX)
    .describe(`Entries per page (default ${LIST_LIMIT_DEFAULT}, at most ${LIST_LIMIT_MAX}).`),
  cursor: z.string().min(1).max(200).describe("The previous answer's nextCursor: the page after it."),
  query: z
    .string()
    .min(1)
    .max(200)
    .describe("Only sessions whose title, id or folder contains this text (case-insensitive)."),
  provider: z.string().min(1).describe("Only sessions of this provider id (as relay_info lists them)."),
  state: z.enum(SESSION_STATES).describe('Only sessions in this state: "running_turn", "background_only" or "idle".'),
  group: z.string().min(1).describe("Only sessions of this group (id or name, as relay_info lists them)."),
};

/** `<last_activity_at>.<id>`: opaque to callers, and not one long run of base64url characters
 * (the earlier base64url of a JSON pair was 46 of them): secret masking looks every such run
 * up as a possible agent token, which on every page cost more than the rest of the masking. */
export function encodeCursor(r: Pick<ListRow, "last_activity_at" | "id">): string {
  return `${r.last_activity_at}.${r.id}`;
}

const CURSOR = /^(\d{1,16})\.(.{1,100})$/s;

function decodeCursor(cursor: string, tail: string): [number, string] {
  const m = CURSOR.exec(cursor);
  if (m && Number.isSafeInteger(Number(m[1]))) return [Number(m[1]), m[2]];
  // A cursor given before the format changed still pages on.
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[0]) && typeof v[1] === "string")
      return [v[0], v[1]];
  } catch {}
  throw new RelayError(
    "REMOTE_RELAY_INVALID_INPUT",
    `cursor is not a nextCursor this relay gave (pass it unchanged, or leave it out for the first page). ${tail}`,
  );
}

export function checkProvider(id: string, tail: string): string {
  if (getProvider(id)) return id;
  throw new RelayError(
    "REMOTE_RELAY_INVALID_INPUT",
    `Unknown provider "${id.slice(0, 60)}". Providers: ${providerList()
      .map((p) => p.id)
      .join(", ")}. ${tail}`,
  );
}

/** SQLite's LIKE folds ASCII case only: a query with other letters is matched through a
 * JS function that folds them all (slower per row, so only then). */
function foldFunction(db: Db): void {
  if ((db as unknown as { _oarFold?: boolean })._oarFold) return;
  db.function("oar_fold", { deterministic: true }, (s: unknown) => (typeof s === "string" ? s.toLowerCase() : s));
  (db as unknown as { _oarFold?: boolean })._oarFold = true;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

const BUSY = "SELECT session_id FROM turns WHERE status IN ('queued','running')";

/** `total` walks the matching index entries (10,000 live sessions: ~0.2 ms, more than the
 * page itself). It is kept until this connection writes anything (total_changes() moves with
 * every insert, update or delete it makes, so no write can leave it stale): pages read
 * between writes, an agent paging through a list, cost the same at any store size. */
const counts = new WeakMap<Db, Map<string, { changes: number; n: number }>>();

function countOf(db: Db, text: string, params: unknown[]): number {
  const changes = (sql(db, "SELECT total_changes() AS c").get() as { c: number }).c;
  let cache = counts.get(db);
  if (!cache) counts.set(db, (cache = new Map()));
  const key = `${text}\0${JSON.stringify(params)}`;
  const hit = cache.get(key);
  if (hit && hit.changes === changes) return hit.n;
  const n = (sql(db, text).get(...params) as { n: number }).n;
  if (cache.size > 100) cache.clear();
  cache.set(key, { changes, n });
  return n;
}

export function listPage(db: Db, q: ListQuery, tail: string): ListPage {
  const where: string[] = ["deleted_at IS NULL"];
  const params: unknown[] = [];
  if (!q.all) where.push("archived_at IS NULL");
  if (q.provider) {
    where.push("provider = ?");
    params.push(q.provider);
  }
  if (q.groupId) {
    where.push("group_id = ?");
    params.push(q.groupId);
  }
  if (q.query) {
    if (/^[\x00-\x7f]*$/.test(q.query)) {
      const like = `%${likeEscape(q.query)}%`;
      where.push("(title LIKE ? ESCAPE '\\' OR id LIKE ? ESCAPE '\\' OR cwd LIKE ? ESCAPE '\\')");
      params.push(like, like, like);
    } else {
      foldFunction(db);
      const folded = q.query.toLowerCase();
      where.push("(instr(oar_fold(title), ?) > 0 OR instr(oar_fold(id), ?) > 0 OR instr(oar_fold(cwd), ?) > 0)");
      params.push(folded, folded, folded);
    }
  }
  if (q.state === "running_turn") where.push(`id IN (${BUSY})`);
  else if (q.state === "background_only") where.push(`id NOT IN (${BUSY}) AND id IN (${RUNNING_TASK_SESSIONS})`);
  else if (q.state === "idle") where.push(`id NOT IN (${BUSY}) AND id NOT IN (${RUNNING_TASK_SESSIONS})`);

  const filter = where.join(" AND ");
  // Without table statistics SQLite would walk every stored session (the index of all of
  // them) to find the live few; a group filter has its own, smaller index.
  const from = q.groupId
    ? "sessions"
    : q.all
      ? "sessions INDEXED BY sessions_listed_order"
      : "sessions INDEXED BY sessions_live_order";
  const total = countOf(db, `SELECT COUNT(*) AS n FROM ${from} WHERE ${filter}`, params);
  let pageFilter = filter;
  const pageParams = [...params];
  if (q.cursor) {
    const [at, id] = decodeCursor(q.cursor, tail);
    pageFilter += " AND (last_activity_at, id) < (?, ?)";
    pageParams.push(at, id);
  }
  const raw = sql(
    db,
    `SELECT ${COLUMNS} FROM ${from} WHERE ${pageFilter} ORDER BY last_activity_at DESC, id DESC LIMIT ?`,
  )
    .raw(true)
    .all(...pageParams, q.limit + 1) as Raw[];
  const rows = raw.map(fromRaw);
  const more = rows.length > q.limit;
  if (more) rows.length = q.limit;
  return { rows, total, nextCursor: more ? encodeCursor(rows[rows.length - 1]) : null };
}
