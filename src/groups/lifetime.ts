import type { Relay } from "../relay.ts";
import { groupRow } from "./groups.ts";

// How long a group lives (relay_tool §8.2 "Groups"): a group the owner made is never removed
// by sessions leaving it and shows as empty; a group an agent made (by starting sessions or
// by naming one in update_session) is dissolved once no undeleted session is left in it.
// Archived sessions still count: read_session lists them as members with `archived`.

/** Moves a session into a group (or out of any with null) and tidies the group it left.
 * Call inside the caller's transaction. */
export function moveToGroup(relay: Relay, sessionId: string, groupId: string | null): void {
  const before = relay.db.prepare("SELECT group_id FROM sessions WHERE id = ?").get(sessionId) as { group_id: string | null } | undefined;
  relay.sessions.update(sessionId, { group_id: groupId });
  if (before?.group_id && before.group_id !== groupId) afterLeave(relay, before.group_id, sessionId);
}

/** After a session left a group (moved out or deleted): a new head if the head left, and an
 * agent's group that is now empty is dissolved. */
export function afterLeave(relay: Relay, groupId: string, sessionId: string): void {
  const g = groupRow(relay, groupId);
  if (!g) return;
  const next = relay.db
    .prepare("SELECT id FROM sessions WHERE group_id = ? AND deleted_at IS NULL AND id != ? ORDER BY created_at, rowid LIMIT 1")
    .get(groupId, sessionId) as { id: string } | undefined;
  if (!next) {
    if (g.created_by === "agent") relay.db.prepare("UPDATE groups SET dissolved_at = ? WHERE id = ?").run(relay.clock.now(), groupId);
    else if (g.head_session === sessionId) relay.db.prepare("UPDATE groups SET head_session = NULL WHERE id = ?").run(groupId);
    return;
  }
  // The head left: the longest-standing member heads the group now (an unnamed group then
  // shows that session's title), so every group keeps a head while it has sessions.
  if (g.head_session === sessionId) relay.db.prepare("UPDATE groups SET head_session = ? WHERE id = ?").run(next.id, groupId);
}

/** Deleted sessions leave their group; wired once by the relay. */
export function installGroupLifetime(relay: Relay): void {
  relay.bus.on((e) => {
    if (e.type !== "session.deleted") return;
    const row = relay.db.prepare("SELECT group_id FROM sessions WHERE id = ?").get(e.sessionId) as { group_id: string | null } | undefined;
    if (!row?.group_id) return;
    relay.db.transaction(() => {
      relay.db.prepare("UPDATE sessions SET group_id = NULL WHERE id = ?").run(e.sessionId);
      afterLeave(relay, row.group_id!, e.sessionId);
    })();
  });
}
