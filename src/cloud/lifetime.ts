import type { Bus } from "../core/bus.ts";
import type { Db } from "../store/db.ts";
import { isWorkspace, removeWorkspace } from "./workspace.ts";

// A Claude Cloud workspace is removed when its session is deleted — unless another undeleted
// session still works in it (compaction continues a conversation in the same clone).
export function installWorkspaceCleanup(db: Db, bus: Bus, dataDir: string): void {
  const folderOf = db.prepare("SELECT cwd FROM sessions WHERE id = ?");
  const othersIn = db.prepare("SELECT 1 FROM sessions WHERE cwd = ? AND id != ? AND deleted_at IS NULL LIMIT 1");
  bus.on((e) => {
    if (e.type !== "session.deleted") return;
    const row = folderOf.get(e.sessionId) as { cwd: string } | undefined;
    if (!row || !isWorkspace(dataDir, row.cwd) || othersIn.get(row.cwd, e.sessionId)) return;
    try {
      removeWorkspace(dataDir, row.cwd);
    } catch (err) {
      console.error(`[cloud] could not remove the workspace ${row.cwd}:`, err);
    }
  });
}
