import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { MIGRATIONS } from "./migrations.ts";
import { DIR_MODE, touchPrivate } from "../core/data-dir.ts";

export type Db = Database.Database;

/** Opens (and migrates) the relay's SQLite file. WAL keeps readers off the writer's back
 * and makes a SIGKILL lose nothing that a committed transaction wrote. */
export function openDb(file: string): Db {
  mkdirSync(dirname(file), { recursive: true, mode: DIR_MODE });
  // 0600 before SQLite opens it: its -wal and -shm files take the database file's mode.
  touchPrivate(file);
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  // SQLite keeps the pages it read until its cache is full, and better-sqlite3 builds SQLite
  // with a 16 MB cache (SQLite's own default is 2 MB): on a big store one search through every
  // session kept 16 MB in the relay for good. The pages the relay reads again and again (list
  // indexes, the open sessions) fit in 4 MB; others come back from the OS's file cache.
  db.pragma("cache_size = -4000");
  migrate(db);
  return db;
}

/** Applies each named migration once, in list order, each in its own transaction. Names
 * (not numbers) let each domain add its tables without renumbering anyone else's. */
function migrate(db: Db): void {
  db.exec("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const done = new Set((db.prepare("SELECT name FROM migrations").all() as { name: string }[]).map((r) => r.name));
  for (const m of MIGRATIONS) {
    if (done.has(m.name)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare("INSERT INTO migrations (name, applied_at) VALUES (?, ?)").run(m.name, Date.now());
    })();
  }
}

export const toJson = (v: unknown): string | null => (v == null ? null : JSON.stringify(v));
export function fromJson<T>(s: string | null | undefined, fallback: T): T {
  if (s == null) return fallback;
  try {
    return JSON.parse(s) as T;
  } catch {
    return fallback;
  }
}
