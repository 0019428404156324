import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Bus } from "../core/bus.ts";
import type { Db } from "../store/db.ts";
import { isWorkspace, removeWorkspace, workspacesDir } from "./workspace.ts";

// A Claude Cloud workspace is removed when its session is deleted — unless another undeleted
// session still works in it (compaction continues a conversation in the same clone). Staging
// clones left by a relay that stopped mid-clone are removed at start.
export function installWorkspaceCleanup(db: Db, bus: Bus, dataDir: string): void {
  // A clone the relay died in the middle of never became a session's workspace.
  const root = workspacesDir(dataDir);
  if (existsSync(root)) for (const f of readdirSync(root)) if (f.startsWith(".clone-")) rmSync(join(root, f), { recursive: true, force: true });
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
