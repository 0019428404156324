// Starts a data folder's keeper process (relay side): detached in its own session, so a
// relay that is killed or restarted does not take it (or the agents it holds) along. From
// dist/ it runs the bundled keeper without a compiler, from sources through tsx, like our
// own agents. It says "ready" on stdout once it listens; its log is <data>/keeper.log.

import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, statSync } from "node:fs";
import { ownProgram } from "../../core/package-paths.ts";
import { logFile } from "./protocol.ts";

export const KEEPER_PROGRAM = "src/providers/keeper/keeper-main.ts";
const READY_TIMEOUT_MS = 30_000;
/** The log starts over past this size (it holds start/attach/exit lines, not agent output). */
const LOG_MAX = 1024 * 1024;

/** The keeper needs no secrets: each agent gets its whole environment in `spawn`. TMPDIR
 * stays, as the socket path may live there (protocol.ts socketPath). */
function keeperEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ["PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ"]) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  return env;
}

function logTail(path: string): string {
  try {
    return readFileSync(path, "utf8").slice(-1000).trim();
  } catch {
    return "";
  }
}

/** Resolves once the keeper listens; rejects (with its log's tail) when it ended first.
 * Exit code 3 means another keeper answers already (a race): that is fine too. */
export async function startKeeper(dataDir: string, orphanMs?: number): Promise<void> {
  const log = logFile(dataDir);
  const fresh = !existsSync(log) || statSync(log).size > LOG_MAX;
  const fd = openSync(log, fresh ? "w" : "a", 0o600);
  const prog = ownProgram(KEEPER_PROGRAM);
  const args = [...prog.args, dataDir, ...(orphanMs ? ["--orphan-ms", String(orphanMs)] : [])];
  const child = spawn(prog.command, args, { cwd: dataDir, detached: true, stdio: ["ignore", "pipe", fd], env: keeperEnv() });
  closeSync(fd);
  try {
    await new Promise<void>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`the keeper did not start within ${READY_TIMEOUT_MS} ms. ${logTail(log)}`)), READY_TIMEOUT_MS);
      child.stdout!.setEncoding("utf8");
      child.stdout!.on("data", (d: string) => {
        out += d;
        if (out.includes("ready")) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once("error", (e) => {
        clearTimeout(timer);
        reject(new Error(`the keeper could not be started: ${e.message}`));
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        if (code === 3) resolve();
        else reject(new Error(`the keeper ended at start (exit ${code}). ${logTail(log)}`));
      });
    });
  } finally {
    child.stdout!.destroy();
    child.removeAllListeners();
    child.unref();
  }
}
