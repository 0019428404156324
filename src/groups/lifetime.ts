import type { Bus } from "../core/bus.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import { groupRow, type GroupDeps } from "./groups.ts";

// How long a group lives (relay_tool §8.2 "Groups"): a group the owner made is never removed
// by sessions leaving it and shows as empty; a group an agent made (by starting sessions or
// by naming one in update_session) is dissolved once no undeleted session is left in it.
// Archived sessions still count: read_session lists them as members with `archived`.

/** What a session leaving its group needs: who is left in it. */
export interface LifetimeDeps extends Omit<GroupDeps, "sessions"> {
  sessions: Pick<SessionStore, "update" | "groupIdOf" | "eldestIn">;
}

/** Moves a session into a group (or out of any with null) and tidies the group it left.
 * Call inside the caller's transaction. */
export function moveToGroup(d: LifetimeDeps, sessionId: string, groupId: string | null): void {
  const before = d.sessions.groupIdOf(sessionId);
  d.sessions.update(sessionId, { group_id: groupId });
  if (before && before !== groupId) afterLeave(d, before, sessionId);
}

/** After a session left a group (moved out or deleted): a new head if the head left, and an
 * agent's group that is now empty is dissolved. */
export function afterLeave(d: LifetimeDeps, groupId: string, sessionId: string): void {
  const g = groupRow(d, groupId);
  if (!g) return;
  const next = d.sessions.eldestIn(groupId, sessionId);
  if (!next) {
    if (g.created_by === "agent")
      d.db.prepare("UPDATE groups SET dissolved_at = ? WHERE id = ?").run(d.clock.now(), groupId);
    else if (g.head_session === sessionId)
      d.db.prepare("UPDATE groups SET head_session = NULL WHERE id = ?").run(groupId);
    return;
  }
  // The head left: the longest-standing member heads the group now (an unnamed group then
  // shows that session's title), so every group keeps a head while it has sessions.
  if (g.head_session === sessionId) d.db.prepare("UPDATE groups SET head_session = ? WHERE id = ?").run(next, groupId);
}

/** Deleted sessions leave their group; wired once by the relay. */
export function installGroupLifetime(d: LifetimeDeps & { bus: Pick<Bus, "on"> }): void {
  d.bus.on((e) => {
    if (e.type !== "session.deleted") return;
    const groupId = d.sessions.groupIdOf(e.sessionId);
    if (!groupId) return;
    d.db.transaction(() => {
      d.sessions.update(e.sessionId, { group_id: null });
      afterLeave(d, groupId, e.sessionId);
    })();
  });
}
