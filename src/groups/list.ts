import type { Relay } from "../relay.ts";
import { groupName, type GroupRow } from "./groups.ts";

export const MAX_GROUPS_LISTED = 50;

/** relay_info's groups: with at least one undeleted session, most recently active first, at most 50. */
export function listGroups(relay: Relay, max = MAX_GROUPS_LISTED): { groups: { id: string; name: string; memberCount: number }[]; groupsTotal?: number } {
  const rows = relay.db.prepare(`
    SELECT g.*, COUNT(s.id) AS member_count, MAX(s.last_activity_at) AS active_at
    FROM groups g JOIN sessions s ON s.group_id = g.id AND s.deleted_at IS NULL
    WHERE g.dissolved_at IS NULL
    GROUP BY g.id ORDER BY active_at DESC`).all() as (GroupRow & { member_count: number })[];
  const groups = rows.slice(0, max).map((g) => ({ id: g.id, name: groupName(relay, g), memberCount: g.member_count }));
  return rows.length > max ? { groups, groupsTotal: rows.length } : { groups };
}
