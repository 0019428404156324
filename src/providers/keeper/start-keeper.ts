// Starts a data folder's keeper process (relay side): detached in its own session, so a
// relay that is killed or restarted does not take it (or the agents it holds) along. From
// dist/ it runs the bundled keeper without a compiler, from sources through tsx, like our
// own agents. It is ready when its socket answers; its output goes to <data>/keeper.log.
//
// No pipe joins the two: a relay that dies while the keeper starts leaves nothing half-open
// behind. The keeper runs in `/`, not in its data folder: a folder removed while the keeper
// loads (a test harness, an uninstall) made tsx's module loader thread fail on
// `process.cwd()`, and the keeper's main thread then waited for it for good, before any
// timer of its own could be armed.

import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";
import { closeSync, existsSync, openSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
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

/** Starts the keeper and resolves with the first connection `connect` makes to its socket;
 * rejects (with its log's tail) when it ended first or did not answer in time (then it is
 * ended: a keeper that never listens would hold nothing and never end by itself). Exit code
 * 3 means another keeper answers already (a race): its socket is used instead. */
export async function startKeeper(
  dataDir: string,
  orphanMs: number | undefined,
  connect: () => Promise<Socket | null>,
): Promise<Socket> {
  const dir = resolve(dataDir);
  const log = logFile(dir);
  const fresh = !existsSync(log) || statSync(log).size > LOG_MAX;
  const fd = openSync(log, fresh ? "w" : "a", 0o600);
  const prog = ownProgram(KEEPER_PROGRAM);
  const args = [...prog.args, dir, ...(orphanMs ? ["--orphan-ms", String(orphanMs)] : [])];
  let child: ChildProcess;
  try {
    child = spawn(prog.command, args, { cwd: "/", detached: true, stdio: ["ignore", fd, fd], env: keeperEnv() });
  } finally {
    closeSync(fd);
  }
  let ended: { code: number | null } | null = null;
  let failed: Error | null = null;
  child.once("exit", (code) => (ended = { code }));
  child.once("error", (e) => (failed = e));
  try {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      const socket = await connect();
      if (socket) return socket;
      if (failed) throw new Error(`the keeper could not be started: ${(failed as Error).message}`);
      const code = (ended as { code: number | null } | null)?.code;
      if (ended && code !== 3) throw new Error(`the keeper ended at start (exit ${code}). ${logTail(log)}`);
      if (Date.now() > deadline) {
        if (!ended) child.kill("SIGKILL");
        throw new Error(`the keeper did not start within ${READY_TIMEOUT_MS} ms. ${logTail(log)}`);
      }
      await new Promise((r) => setTimeout(r, pause));
    }
  } finally {
    child.removeAllListeners();
    child.unref();
  }
}
