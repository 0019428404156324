import type { Clock } from "../core/clock.ts";
import type { Db } from "../store/db.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import type { SessionRow } from "../sessions/types.ts";
import { newId } from "../core/ids.ts";
import { sql } from "../store/sql.ts";

// Session groups: a session an agent starts joins its starter's group, or starts one with
// the starter as head (seed §3, §8.2). Who made a group decides its lifetime: the owner's
// stay when empty, an agent's are dissolved once their last session leaves (lifetime.ts).

export interface GroupRow {
  id: string;
  name: string | null;
  head_session: string | null;
  created_by: "owner" | "agent";
  created_at: number;
  dissolved_at: number | null;
}

export interface GroupRef {
  id: string;
  name: string;
}

/** What reading a group uses: its table, and its head session's title (an unnamed group's name). */
export interface GroupReads {
  db: Db;
  sessions: Pick<SessionStore, "get">;
}

/** What the groups domain uses: its own table, the clock, and the sessions it groups. */
export interface GroupDeps extends GroupReads {
  clock: Pick<Clock, "now">;
  sessions: Pick<SessionStore, "get" | "update">;
}

/** A group id as this relay makes them: `grp_` and lowercase letters or digits. */
export const looksLikeGroupId = (ref: string): boolean => /^grp_[a-z0-9]+$/i.test(ref.trim());

export function groupRow(d: Pick<GroupDeps, "db">, id: string | null): GroupRow | undefined {
  if (!id) return undefined;
  return d.db.prepare("SELECT * FROM groups WHERE id = ? AND dissolved_at IS NULL").get(id) as GroupRow | undefined;
}

/** What the sidebar shows: its name, or for a group nobody named, its head session's title. */
export function groupName(d: Pick<GroupReads, "sessions">, g: GroupRow): string {
  if (g.name) return g.name;
  const head = g.head_session ? d.sessions.get(g.head_session) : undefined;
  return head?.title ?? "Group";
}

export function groupOf(
  d: GroupReads,
  s: Pick<SessionRow, "id" | "group_id">,
): { id: string; name: string; role: "head" | "member" } | null {
  const g = groupRow(d, s.group_id);
  if (!g) return null;
  return { id: g.id, name: groupName(d, g), role: g.head_session === s.id ? "head" : "member" };
}

/** The live groups among `ids`, in one read (a list page names the same groups many times). */
export function liveGroupsByIds(d: Pick<GroupDeps, "db">, ids: readonly string[]): Map<string, GroupRow> {
  if (!ids.length) return new Map();
  const rows = sql(
    d.db,
    "SELECT * FROM groups WHERE dissolved_at IS NULL AND id IN (SELECT value FROM json_each(?))",
  ).all(JSON.stringify(ids)) as GroupRow[];
  return new Map(rows.map((g) => [g.id, g]));
}

/** Compaction: the groups one conversation headed are headed by its successor. */
export function moveHead(d: Pick<GroupDeps, "db">, from: string, to: string): void {
  d.db.prepare("UPDATE groups SET head_session = ? WHERE head_session = ?").run(to, from);
}

/** A new group. Call inside the caller's transaction. */
export function createGroup(
  d: Pick<GroupDeps, "db" | "clock">,
  opts: { name: string | null; by: "owner" | "agent"; head?: string | null },
): GroupRow {
  const id = newId("grp");
  d.db
    .prepare("INSERT INTO groups (id, name, head_session, created_by, created_at) VALUES (?, ?, ?, ?, ?)")
    .run(id, opts.name, opts.head ?? null, opts.by, d.clock.now());
  return groupRow(d, id)!;
}

/** Puts a session its starter started into the starter's group, creating one headed by the starter. */
export function joinStarterGroup(d: GroupDeps, starter: SessionRow, sessionId: string): void {
  let g = groupRow(d, starter.group_id);
  if (!g) {
    g = createGroup(d, { name: null, by: "agent", head: starter.id });
    d.sessions.update(starter.id, { group_id: g.id });
  }
  d.sessions.update(sessionId, { group_id: g.id });
}
