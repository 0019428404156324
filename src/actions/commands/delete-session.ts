import { endSession, type ArchiveDeps } from "./archive-session.ts";

/** Deletes a session: as archiving (archive-session.ts), but its worker is killed. */
export function deleteSession(d: ArchiveDeps, id: string): void {
  endSession(d, id, "deleted");
  d.workers.kill(id);
  d.bus.emit({ type: "session.deleted", sessionId: id });
}
