import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// DATA/relay.pid says which process serves this data folder and on which port, so that
// `oar restore` can refuse while the relay runs and `oar doctor` can tell "port in use by
// this relay" from "port taken by something else". A SIGKILL leaves the file behind: a
// stale one is recognised by its process being gone or its port not answering as OAR.

export interface PidInfo {
  pid: number;
  host: string;
  port: number;
  startedAt: string;
}

export const pidFile = (dataDir: string) => join(dataDir, "relay.pid");

export function writePidFile(dataDir: string, info: Omit<PidInfo, "pid" | "startedAt">): void {
  const body: PidInfo = { pid: process.pid, startedAt: new Date().toISOString(), ...info };
  writeFileSync(pidFile(dataDir), JSON.stringify(body) + "\n", { mode: 0o600 });
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
    return typeof v?.pid === "number" && typeof v?.port === "number" ? (v as PidInfo) : null;
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

/** The relay serving this data folder, if one runs: its process is alive and its port
 * answers /api/health as OAR. */
export async function runningRelay(dataDir: string): Promise<PidInfo | null> {
  const info = readPidFile(dataDir);
  if (!info || !processAlive(info.pid)) return null;
  const host = info.host === "0.0.0.0" || info.host === "::" ? "127.0.0.1" : info.host.includes(":") ? `[${info.host}]` : info.host;
  try {
    const r = await fetch(`http://${host}:${info.port}/api/health`, { signal: AbortSignal.timeout(3000) });
    const j = (await r.json()) as { ok?: boolean; version?: string };
    return j?.ok && j.version ? info : null;
  } catch {
    // Alive but not answering (starting, or wedged): still counts as running for restore.
    return info;
  }
}
