import type { Db } from "../store/db.ts";

/** Which folder a session works in, and whether another one works there too: for the cloud
 * workspace cleanup (cloud/lifetime.ts), which removes a folder only its deleted session used.
 * Deleted sessions are read too: the cleanup runs once a session is deleted. */
export function sessionFolders(db: Db): {
  folderOf(sessionId: string): string | undefined;
  sharesFolder(cwd: string, except: string): boolean;
} {
  const folder = db.prepare("SELECT cwd FROM sessions WHERE id = ?").pluck();
  const othersIn = db.prepare("SELECT 1 FROM sessions WHERE cwd = ? AND id != ? AND deleted_at IS NULL LIMIT 1");
  return {
    folderOf: (id) => folder.get(id) as string | undefined,
    sharesFolder: (cwd, except) => othersIn.get(cwd, except) !== undefined,
  };
}
