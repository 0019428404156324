import Database from "better-sqlite3";
import {
  chmodSync,
  closeSync,
  existsSync,
  fchmodSync,
  linkSync,
  lstatSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { randomBytes } from "node:crypto";
import { basename, dirname, join, resolve } from "node:path";
import { lockDataDir } from "./folder-lock.ts";
import { describeHolder, runningRelay, unlockedRelay, type FolderHolder } from "./pid-file.ts";
import { FILE_MODE, secureDataDir, touchPrivate } from "../core/data-dir.ts";

// `oar backup FILE` and `oar restore FILE` (contract §9.3). The backup uses SQLite's online
// backup API from a connection of its own, so it is a consistent copy taken while the relay
// keeps running and writing (WAL): no lock held for long, no half-written transaction in it.

export const dbFile = (dataDir: string) => join(dataDir, "oar.db");

export async function backup(dataDir: string, file: string): Promise<{ file: string; bytes: number }> {
  const src = dbFile(dataDir);
  if (!existsSync(src)) throw new Error(`There is no relay store at ${src} (is --data right?). Nothing was written.`);
  const dest = resolve(file);
  const there = lstatOrNull(dest);
  if (there?.isSymbolicLink())
    throw new Error(`${dest} is a symbolic link; give the path of a new file, not a link. Nothing was written.`);
  if (there) throw new Error(`${dest} exists already; give a new file name. Nothing was written.`);
  // It holds the owner's keys and every agent token: private from its first byte. Written
  // under a temporary name beside the target, made here (O_EXCL: never through a link) with
  // mode 0600 (SQLite gives its journal the same), then linked into place.
  const tmp = join(dirname(dest), `.${basename(dest)}.oar-${randomBytes(4).toString("hex")}.tmp`);
  const fd = openSync(tmp, "wx", FILE_MODE);
  try {
    fchmodSync(fd, FILE_MODE); // whatever the umask
  } finally {
    closeSync(fd);
  }
  try {
    const db = new Database(src, { readonly: true, fileMustExist: true });
    try {
      db.pragma("busy_timeout = 5000");
      await db.backup(tmp);
    } finally {
      db.close();
    }
    place(tmp, dest);
  } finally {
    rmSync(tmp, { force: true });
    rmSync(`${tmp}-journal`, { force: true });
  }
  return { file: dest, bytes: statSync(dest).size };
}

/** Puts the finished copy at `dest` without ever replacing what appeared there meanwhile
 * (a hard link fails on an existing name, a link included). */
function place(tmp: string, dest: string): void {
  try {
    linkSync(tmp, dest);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST")
      throw new Error(`${dest} appeared while the backup was written; give a new file name. Nothing was written.`);
    // A file system without hard links: rename, after looking once more.
    if (lstatOrNull(dest))
      throw new Error(`${dest} appeared while the backup was written; give a new file name. Nothing was written.`);
    renameSync(tmp, dest);
  }
}

function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
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
    if (ok !== "ok")
      throw new Error(`${file} fails SQLite's integrity check (${String(ok).slice(0, 200)}). Nothing was restored.`);
    const tables = new Set(
      (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
        (r) => r.name,
      ),
    );
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
  checkStore(src);
  // Held while the store is replaced: a relay starting meanwhile is refused.
  const lock = lockDataDir(dataDir);
  if (!lock) throw refusal(await runningRelay(dataDir));
  try {
    const older = await unlockedRelay(dataDir);
    if (older) throw refusal(older);
    return await replaceStore(dataDir, src);
  } finally {
    lock.release();
  }
}

function refusal(holder: FolderHolder | null): Error {
  const who = holder ? describeHolder(holder) : "another oar process";
  const stop = holder?.pid ? `systemctl --user stop oar, Ctrl-C, or kill ${holder.pid}` : "wait for it to end";
  return new Error(
    `A relay holds this data folder: ${who}. Stop it first (${stop}), then restore. Nothing was restored.`,
  );
}

async function replaceStore(dataDir: string, src: string): Promise<{ kept: string | null }> {
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
  touchPrivate(target);
  const db = new Database(src, { readonly: true, fileMustExist: true });
  try {
    await db.backup(target);
  } finally {
    db.close();
  }
  chmodSync(target, FILE_MODE);
  return { kept };
}
