import type { Relay } from "../relay.ts";
import { groupName, type GroupRow } from "./groups.ts";
import { versionLess } from "../core/versions.ts";
import { sql } from "../store/sql.ts";

export const MAX_GROUPS_LISTED = 50;

export interface GroupListing {
  id: string;
  name: string;
  memberCount: number;
}

/** Every group that is not dissolved, most recently active first (empty ones last). */
export function allGroups(relay: Relay): GroupListing[] {
  const rows = relay.db.prepare(`
    SELECT g.*, COUNT(s.id) AS member_count, MAX(s.last_activity_at) AS active_at
    FROM groups g LEFT JOIN sessions s ON s.group_id = g.id AND s.deleted_at IS NULL
    WHERE g.dissolved_at IS NULL
    GROUP BY g.id ORDER BY active_at IS NULL, active_at DESC, g.created_at DESC, g.rowid DESC`).all() as (GroupRow & { member_count: number })[];
  return rows.map((g) => ({ id: g.id, name: groupName(relay, g), memberCount: g.member_count }));
}

/** relay_info's groups: with at least one undeleted session, most recently active first, at most 50.
 * Each group's latest activity is one seek on its index (sessions_group), and only the groups
 * shown are counted: relay_info does not read every grouped session. */
export function listGroups(relay: Relay, max = MAX_GROUPS_LISTED): { groups: GroupListing[]; groupsTotal?: number } {
  // A deleted session has left its group (lifetime.ts), so the latest activity is one
  // covering-index seek per group; materialized so it is computed once per group.
  const rows = sql(relay.db, `
    WITH g AS MATERIALIZED (
      SELECT g.*, g.rowid AS rid, (SELECT MAX(s.last_activity_at) FROM sessions s WHERE s.group_id = g.id) AS active_at
      FROM groups g WHERE g.dissolved_at IS NULL)
    SELECT * FROM g WHERE active_at IS NOT NULL ORDER BY active_at DESC, created_at DESC, rid DESC`).all() as GroupRow[];
  const count = sql(relay.db, "SELECT COUNT(*) AS n FROM sessions WHERE group_id = ? AND deleted_at IS NULL");
  const groups = rows.slice(0, max).map((g) => ({ id: g.id, name: groupName(relay, g), memberCount: (count.get(g.id) as { n: number }).n }));
  return rows.length > max ? { groups, groupsTotal: rows.length } : { groups };
}

/** relay_info's `groups`; a relay older than 0.9.16 cannot say (`groups: null` and why). */
export function groupsInfo(relay: Relay): { groups: GroupListing[] | null; groupsTotal?: number; groupsNote?: string } {
  if (versionLess(relay.version, "0.9.16")) {
    return { groups: null, groupsNote: `Relay "${relay.name}" runs OAR ${relay.version}, which cannot list session groups (needs 0.9.16); create_session there cannot take group.` };
  }
  return listGroups(relay);
}
