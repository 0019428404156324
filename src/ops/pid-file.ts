import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dataDirLocked } from "./folder-lock.ts";

// DATA/relay.pid says which process serves this data folder and where it listens: what
// `oar url`, `oar restore`, `oar doctor` and a refused second start tell the owner. Whether a
// relay runs at all is the folder's lock (folder-lock.ts), never this file: a SIGKILL leaves
// it behind, and its pid may be reused by another program.

export interface PidInfo {
  pid: number;
  host: string;
  port: number;
  /** Served over https (--tls-cert): `oar url` prints an https link. */
  tls?: boolean;
  startedAt: string;
}

export const pidFile = (dataDir: string) => join(dataDir, "relay.pid");

export function writePidFile(dataDir: string, info: Omit<PidInfo, "pid" | "startedAt">): void {
  const body: PidInfo = { pid: process.pid, startedAt: new Date().toISOString(), ...info };
  writeFileSync(pidFile(dataDir), `${JSON.stringify(body)}\n`, { mode: 0o600 });
}

export function removePidFile(dataDir: string): void {
  try {
    const info = readPidFile(dataDir);
    if (!info || info.pid === process.pid) rmSync(pidFile(dataDir), { force: true });
  } catch {}
}

export function readPidFile(dataDir: string): PidInfo | null {
  try {
    const v = JSON.parse(readFileSync(pidFile(dataDir), "utf8"));
    return typeof v?.pid === "number" && typeof v?.port === "number" && typeof v?.host === "string"
      ? (v as PidInfo)
      : null;
  } catch {
    return null;
  }
}

/** Where a relay listening on host:port is reached from this machine. */
export function localUrl(host: string, port: number, tls = false): string {
  const h = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  return `${tls ? "https" : "http"}://${h}:${port}`;
}

/** What a relay's `GET /api/health` says, or null when no OAR relay answers there. */
export async function askHealth(url: string): Promise<{ name: string; version: string } | null> {
  try {
    const r = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(3000) });
    const j = (await r.json()) as { ok?: unknown; name?: unknown; version?: unknown };
    return j?.ok === true && typeof j.name === "string" && typeof j.version === "string"
      ? { name: j.name, version: j.version }
      : null;
  } catch {
    return null;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The process holding a data folder. Address, pid, name and version are known once it
 * serves (relay.pid written, /api/health answering); a relay still starting, or an
 * `oar restore`, holds the folder before that. */
export interface FolderHolder {
  pid: number | null;
  port: number | null;
  url: string | null;
  name: string | null;
  version: string | null;
}

/** The relay (or restore) holding this data folder, or null when none does. */
export async function runningRelay(dataDir: string): Promise<FolderHolder | null> {
  if (!dataDirLocked(dataDir)) return null;
  const info = readPidFile(dataDir);
  // A file left by a killed relay while the next one starts names a dead process.
  if (!info || !processAlive(info.pid)) return { pid: null, port: null, url: null, name: null, version: null };
  const url = localUrl(info.host, info.port, info.tls === true);
  const health = await askHealth(url);
  return { pid: info.pid, port: info.port, url, name: health?.name ?? null, version: health?.version ?? null };
}

/** A relay serving this folder without its lock: one started by an OAR from before the lock
 * (an upgrade while it runs). relay.pid names a live process, and its port answers as OAR. */
export async function unlockedRelay(dataDir: string): Promise<FolderHolder | null> {
  const info = readPidFile(dataDir);
  if (!info || !processAlive(info.pid)) return null;
  const url = localUrl(info.host, info.port, info.tls === true);
  const health = await askHealth(url);
  return health ? { pid: info.pid, port: info.port, url, ...health } : null;
}

/** `relay "desk" (OAR 0.9.19, pid 4242) at http://127.0.0.1:7420`, as far as it is known. */
export function describeHolder(h: FolderHolder): string {
  if (h.pid === null) return "another oar process (a relay still starting, or `oar restore`)";
  const what = [h.version ? `OAR ${h.version}` : null, `pid ${h.pid}`].filter(Boolean).join(", ");
  return `relay${h.name ? ` "${h.name}"` : ""} (${what}) at ${h.url}`;
}
