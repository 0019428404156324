import { type Stats, chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync } from "node:fs";
import { join } from "node:path";

// The data folder holds the owner token, every session's agent token and the provider keys
// (in oar.db): nobody but its owner may read it (contract §9.3: folder 0700, files 0600).
// Modes are set explicitly where a file is made rather than through a process umask, which
// the agent processes would inherit and apply to the files they write in the user's projects.

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/** Makes the folder (and `tasks/`) private, and tightens what an older install left open. */
export function secureDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  tighten(dir, 0);
}

function tighten(path: string, depth: number): void {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return;
  if (st.isDirectory()) {
    if ((st.mode & 0o777) !== DIR_MODE) chmodSync(path, DIR_MODE);
    if (depth > 2) return;
    for (const name of readdirSync(path)) tighten(join(path, name), depth + 1);
  } else if (st.isFile() && (st.mode & 0o077) !== 0) {
    chmodSync(path, FILE_MODE);
  }
}

/** Creates an empty file with mode 0600 if it is missing: SQLite then gives its -wal and
 * -shm files the database file's own mode. */
export function touchPrivate(file: string): void {
  if (existsSync(file)) return;
  closeSync(openSync(file, "a", FILE_MODE));
  chmodSync(file, FILE_MODE);
}

/** Where the folder or a file in it is open to others: what `oar doctor` reports. */
export function openModes(dir: string): string[] {
  const found: string[] = [];
  const walk = (path: string, depth: number) => {
    let st: Stats;
    try {
      st = lstatSync(path);
    } catch {
      return;
    }
    if (st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      if ((st.mode & 0o077) !== 0) found.push(`${path} is ${(st.mode & 0o777).toString(8)} (should be 700)`);
      if (depth <= 2) for (const name of readdirSync(path)) walk(join(path, name), depth + 1);
    } else if (st.isFile() && (st.mode & 0o077) !== 0) {
      found.push(`${path} is ${(st.mode & 0o777).toString(8)} (should be 600)`);
    }
  };
  walk(dir, 0);
  return found;
}
