import type { ActionServices } from "../services.ts";

export type ArchiveDeps = Pick<
  ActionServices,
  "turns" | "sessions" | "questions" | "schedules" | "workers" | "clock" | "bus" | "transaction"
>;

/** Archives a session: its turn stops, its worker ends; it stays listed under scope "all". */
export function archiveSession(d: ArchiveDeps, id: string): void {
  endSession(d, id, "archived");
  d.workers.stop(id);
  d.bus.emit({ type: "session.archived", sessionId: id });
  d.bus.emit({ type: "session.updated", sessionId: id });
}

/** What archiving and deleting share: queued turns end (turns.dropQueued), the running one
 * stops, the row is marked in one transaction with its pending questions, schedules end. */
export function endSession(d: ArchiveDeps, id: string, how: "archived" | "deleted"): void {
  d.turns.dropQueued(id);
  d.turns.stop(id);
  d.transaction(() => {
    d.sessions.update(id, how === "archived" ? { archived_at: d.clock.now() } : { deleted_at: d.clock.now() });
    d.questions.endPendingFor(id);
  });
  d.schedules.endForSession(id, how);
}
