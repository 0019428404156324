import type { SessionStore } from "../sessions/session-store.ts";
import type { SessionRow } from "../sessions/types.ts";
import { groupOf, type GroupReads } from "./groups.ts";

const MAX_MEMBERS = 50;

/** read_session's group: the session's own place plus the other members (at most 50). */
export function groupMembers(
  d: GroupReads & { sessions: Pick<SessionStore, "get" | "busySessions" | "membersOf" | "state"> },
  s: SessionRow,
) {
  const g = groupOf(d, s);
  if (!g) return null;
  const busy = d.sessions.busySessions();
  const rows = d.sessions.membersOf(g.id, s.id, MAX_MEMBERS);
  const members = rows.map((m) => ({
    id: m.id,
    title: m.title,
    role: groupOf(d, m)?.role ?? "member",
    state: d.sessions.state(m.id, busy),
    ...(m.archived_at ? { archived: true } : {}),
  }));
  return { ...g, members };
}
