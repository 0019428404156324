import type { Relay } from "../relay.ts";
import type { SessionRow } from "../sessions/types.ts";
import { newId } from "../core/ids.ts";

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

/** A group id as this relay makes them: `grp_` and lowercase letters or digits. */
export const looksLikeGroupId = (ref: string): boolean => /^grp_[a-z0-9]+$/i.test(ref.trim());

export function groupRow(relay: Relay, id: string | null): GroupRow | undefined {
  if (!id) return undefined;
  return relay.db.prepare("SELECT * FROM groups WHERE id = ? AND dissolved_at IS NULL").get(id) as GroupRow | undefined;
}

/** What the sidebar shows: its name, or for a group nobody named, its head session's title. */
export function groupName(relay: Relay, g: GroupRow): string {
  if (g.name) return g.name;
  const head = g.head_session ? relay.sessions.get(g.head_session) : undefined;
  return head?.title ?? "Group";
}

export function groupOf(relay: Relay, s: Pick<SessionRow, "id" | "group_id">): { id: string; name: string; role: "head" | "member" } | null {
  const g = groupRow(relay, s.group_id);
  if (!g) return null;
  return { id: g.id, name: groupName(relay, g), role: g.head_session === s.id ? "head" : "member" };
}

/** A new group. Call inside the caller's transaction. */
export function createGroup(relay: Relay, opts: { name: string | null; by: "owner" | "agent"; head?: string | null }): GroupRow {
  const id = newId("grp");
  relay.db.prepare("INSERT INTO groups (id, name, head_session, created_by, created_at) VALUES (?, ?, ?, ?, ?)")
    .run(id, opts.name, opts.head ?? null, opts.by, relay.clock.now());
  return groupRow(relay, id)!;
}

/** Puts a session its starter started into the starter's group, creating one headed by the starter. */
export function joinStarterGroup(relay: Relay, starter: SessionRow, sessionId: string): void {
  let g = groupRow(relay, starter.group_id);
  if (!g) {
    g = createGroup(relay, { name: null, by: "agent", head: starter.id });
    relay.sessions.update(starter.id, { group_id: g.id });
  }
  relay.sessions.update(sessionId, { group_id: g.id });
}
