import type { Relay } from "../relay.ts";
import type { SessionRow } from "../sessions/types.ts";
import { groupOf } from "./groups.ts";

const MAX_MEMBERS = 50;

/** read_session's group: the session's own place plus the other members (at most 50). */
export function groupMembers(relay: Relay, s: SessionRow) {
  const g = groupOf(relay, s);
  if (!g) return null;
  const busy = relay.sessions.busySessions();
  const rows = relay.db
    .prepare("SELECT * FROM sessions WHERE group_id = ? AND id != ? AND deleted_at IS NULL ORDER BY last_activity_at DESC LIMIT ?")
    .all(g.id, s.id, MAX_MEMBERS) as SessionRow[];
  const members = rows.map((m) => ({
    id: m.id,
    title: m.title,
    role: groupOf(relay, m)?.role ?? "member",
    state: relay.sessions.state(m.id, busy),
    ...(m.archived_at ? { archived: true } : {}),
  }));
  return { ...g, members };
}
