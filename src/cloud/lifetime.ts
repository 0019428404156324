import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Bus } from "../core/bus.ts";
import { isWorkspace, removeWorkspace, workspacesDir } from "./workspace.ts";

export interface WorkspaceCleanupDeps {
  bus: Pick<Bus, "on">;
  dataDir: string;
  /** The folder a session (deleted ones too) works in (sessions/folders.ts). */
  folderOf(sessionId: string): string | undefined;
  /** Whether an undeleted session other than `except` works in `cwd`. */
  sharesFolder(cwd: string, except: string): boolean;
}

// A Claude Cloud workspace is removed when its session is deleted — unless another undeleted
// session still works in it (compaction continues a conversation in the same clone). Staging
// clones left by a relay that stopped mid-clone are removed at start.
export function installWorkspaceCleanup(d: WorkspaceCleanupDeps): void {
  const { dataDir } = d;
  // A clone the relay died in the middle of never became a session's workspace.
  const root = workspacesDir(dataDir);
  if (existsSync(root))
    for (const f of readdirSync(root))
      if (f.startsWith(".clone-")) rmSync(join(root, f), { recursive: true, force: true });
  d.bus.on((e) => {
    if (e.type !== "session.deleted") return;
    const cwd = d.folderOf(e.sessionId);
    if (cwd === undefined || !isWorkspace(dataDir, cwd) || d.sharesFolder(cwd, e.sessionId)) return;
    try {
      removeWorkspace(dataDir, cwd);
    } catch (err) {
      console.error(`[cloud] could not remove the workspace ${cwd}:`, err);
    }
  });
}
