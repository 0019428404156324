import type { SessionStore } from "../sessions/session-store.ts";
import { groupName, type GroupReads, type GroupRow } from "./groups.ts";
import { versionLess } from "../core/versions.ts";
import { sql } from "../store/sql.ts";

export const MAX_GROUPS_LISTED = 50;

/** What listing groups reads: the groups, their sessions, and which relay this is. */
export interface ListDeps extends GroupReads {
  sessions: Pick<SessionStore, "get" | "countIn">;
  name: string;
  version: string;
}

export interface GroupListing {
  id: string;
  name: string;
  memberCount: number;
}

/** Every group that is not dissolved, most recently active first (empty ones last). */
export function allGroups(d: Pick<ListDeps, "db" | "sessions">): GroupListing[] {
  const rows = d.db
    .prepare(`
    SELECT g.*, COUNT(s.id) AS member_count, MAX(s.last_activity_at) AS active_at
    FROM groups g LEFT JOIN sessions s ON s.group_id = g.id AND s.deleted_at IS NULL
    WHERE g.dissolved_at IS NULL
    GROUP BY g.id ORDER BY active_at IS NULL, active_at DESC, g.created_at DESC, g.rowid DESC`)
    .all() as (GroupRow & { member_count: number })[];
  return rows.map((g) => ({ id: g.id, name: groupName(d, g), memberCount: g.member_count }));
}

/** relay_info's groups: with at least one undeleted session, most recently active first, at most 50.
 * Each group's latest activity is one seek on its index (sessions_group), and only the groups
 * shown are counted: relay_info does not read every grouped session. */
export function listGroups(
  d: Pick<ListDeps, "db" | "sessions">,
  max = MAX_GROUPS_LISTED,
): { groups: GroupListing[]; groupsTotal?: number } {
  // A deleted session has left its group (lifetime.ts), so the latest activity is one
  // covering-index seek per group; materialized so it is computed once per group.
  const rows = sql(
    d.db,
    `
    WITH g AS MATERIALIZED (
      SELECT g.*, g.rowid AS rid, (SELECT MAX(s.last_activity_at) FROM sessions s WHERE s.group_id = g.id) AS active_at
      FROM groups g WHERE g.dissolved_at IS NULL)
    SELECT * FROM g WHERE active_at IS NOT NULL ORDER BY active_at DESC, created_at DESC, rid DESC`,
  ).all() as GroupRow[];
  const groups = rows
    .slice(0, max)
    .map((g) => ({ id: g.id, name: groupName(d, g), memberCount: d.sessions.countIn(g.id) }));
  return rows.length > max ? { groups, groupsTotal: rows.length } : { groups };
}

/** relay_info's `groups`; a relay older than 0.9.16 cannot say (`groups: null` and why). */
export function groupsInfo(d: ListDeps): { groups: GroupListing[] | null; groupsTotal?: number; groupsNote?: string } {
  if (versionLess(d.version, "0.9.16")) {
    return {
      groups: null,
      groupsNote: `Relay "${d.name}" runs OAR ${d.version}, which cannot list session groups (needs 0.9.16); create_session there cannot take group.`,
    };
  }
  return listGroups(d);
}
