import { RelayError } from "../core/errors.ts";
import type { Bus } from "../core/bus.ts";
import type { SessionRow } from "./types.ts";

// POST /api/sessions/:id/unarchive (contract §10.5): an archived session comes back and takes
// messages again. What archiving ended stays ended: its subscriptions and schedules, its
// questions; its next message starts a fresh worker as after any stop.

export interface UnarchiveDeps {
  sessions: {
    get(id: string): SessionRow | undefined;
    update(id: string, patch: { archived_at: number | null }): void;
  };
  bus: Pick<Bus, "emit">;
}

export function unarchiveSession(d: UnarchiveDeps, id: string): SessionRow {
  const s = d.sessions.get(id);
  if (!s)
    throw new RelayError(
      "REMOTE_RELAY_NOT_FOUND",
      `No session "${id.slice(0, 80)}" on this relay. Nothing was changed.`,
    );
  if (!s.archived_at) return s;
  d.sessions.update(id, { archived_at: null });
  d.bus.emit({ type: "session.updated", sessionId: id });
  return d.sessions.get(id)!;
}
