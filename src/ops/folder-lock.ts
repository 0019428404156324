import Database from "better-sqlite3";
import { closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { DIR_MODE, FILE_MODE } from "../core/data-dir.ts";

// One relay per data folder: two would both run every schedule, overwrite each other's
// relay.pid, and let `oar restore` replace the store under one of them. DATA/relay.lock
// carries the lock: an exclusive SQLite transaction held open for the holder's life. SQLite
// takes it as a POSIX record lock (fcntl), which the kernel drops when the process ends,
// however it ends: a SIGKILLed relay leaves nothing stale behind, and a pid file naming a
// reused pid cannot fake a running relay. Record locks are not inherited by children, so the
// keeper (which outlives its relay on purpose) never holds it. `oar restore` holds it too.

export const lockFile = (dataDir: string) => join(dataDir, "relay.lock");

export interface FolderLock {
  release(): void;
}

/** Takes the data folder's lock (making the folder when missing); null while another
 * process holds it. */
export function lockDataDir(dataDir: string): FolderLock | null {
  mkdirSync(dataDir, { recursive: true, mode: DIR_MODE });
  const file = lockFile(dataDir);
  // Made here with its mode: SQLite would make a new file 0644.
  closeSync(openSync(file, "a", FILE_MODE));
  return tryLock(file);
}

/** Whether some process holds the folder's lock now. Creates nothing: the lock is taken and
 * let go at once when it is free. */
export function dataDirLocked(dataDir: string): boolean {
  const file = lockFile(dataDir);
  if (!existsSync(file)) return false;
  const lock = tryLock(file);
  lock?.release();
  return !lock;
}

function tryLock(file: string): FolderLock | null {
  const db = new Database(file, { timeout: 0, fileMustExist: true });
  try {
    // The transaction writes nothing; its journal stays in memory (no relay.lock-journal).
    db.pragma("journal_mode = MEMORY");
    db.exec("BEGIN EXCLUSIVE");
  } catch (e) {
    db.close();
    const code = (e as { code?: string }).code;
    if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED") return null;
    throw new Error(
      `${file} cannot be locked (${(e as Error).message}); it holds nothing else: remove it and try again.`,
    );
  }
  return {
    release() {
      if (!db.open) return;
      try {
        db.exec("ROLLBACK");
      } catch {}
      db.close();
    },
  };
}
