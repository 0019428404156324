import Database from "better-sqlite3";
import { chmodSync, existsSync, renameSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { runningRelay } from "./pid-file.ts";
import { FILE_MODE, secureDataDir } from "./data-dir.ts";

// `oar backup FILE` and `oar restore FILE` (contract §9.3). The backup uses SQLite's online
// backup API from a connection of its own, so it is a consistent copy taken while the relay
// keeps running and writing (WAL): no lock held for long, no half-written transaction in it.

export const dbFile = (dataDir: string) => join(dataDir, "oar.db");

export async function backup(dataDir: string, file: string): Promise<{ file: string; bytes: number }> {
  const src = dbFile(dataDir);
  if (!existsSync(src)) throw new Error(`There is no relay store at ${src} (is --data right?). Nothing was written.`);
  const dest = resolve(file);
  if (existsSync(dest)) throw new Error(`${dest} exists already; give a new file name. Nothing was written.`);
  const db = new Database(src, { readonly: true, fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    await db.backup(dest);
  } finally {
    db.close();
  }
  // It holds the owner's keys and every agent token: as private as the store itself.
  chmodSync(dest, FILE_MODE);
  return { file: dest, bytes: statSync(dest).size };
}

/** Checks that a file is an intact OAR store: SQLite, integrity ok, OAR's tables. */
export function checkStore(file: string): void {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new Error(`${file} cannot be opened as SQLite (${(e as Error).message}). Nothing was restored.`);
  }
  try {
    const ok = db.pragma("integrity_check", { simple: true });
    if (ok !== "ok") throw new Error(`${file} fails SQLite's integrity check (${String(ok).slice(0, 200)}). Nothing was restored.`);
    const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
    for (const t of ["migrations", "sessions", "messages", "settings"]) {
      if (!tables.has(t)) throw new Error(`${file} is not an OAR store (no ${t} table). Nothing was restored.`);
    }
  } catch (e) {
    if ((e as Error).message.includes("Nothing was restored")) throw e;
    throw new Error(`${file} is not a readable OAR store (${(e as Error).message}). Nothing was restored.`);
  } finally {
    db.close();
  }
}

/** Puts a backup back as the relay's store. Only while the relay is stopped; the store it
 * replaces is kept beside it as oar.db.before-restore-<time>. */
export async function restore(dataDir: string, file: string): Promise<{ kept: string | null }> {
  const src = resolve(file);
  if (!existsSync(src)) throw new Error(`${src} does not exist. Nothing was restored.`);
  const running = await runningRelay(dataDir);
  if (running) {
    throw new Error(`The relay is running on this data folder (pid ${running.pid}, port ${running.port}). Stop it first (oar service stop, or Ctrl-C / kill ${running.pid}), then restore. Nothing was restored.`);
  }
  checkStore(src);
  secureDataDir(dataDir);
  const target = dbFile(dataDir);
  let kept: string | null = null;
  if (existsSync(target)) {
    // Fold the old WAL into the old file before moving it aside, so the kept copy is whole.
    const old = new Database(target);
    try {
      old.pragma("wal_checkpoint(TRUNCATE)");
    } finally {
      old.close();
    }
    kept = `${target}.before-restore-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    renameSync(target, kept);
  }
  for (const ext of ["-wal", "-shm"]) rmSync(target + ext, { force: true });
  const db = new Database(src, { readonly: true, fileMustExist: true });
  try {
    await db.backup(target);
  } finally {
    db.close();
  }
  chmodSync(target, FILE_MODE);
  return { kept };
}
