// The merge's test command: `sh -c COMMAND` at the root of the scratch worktree, in its own
// process group (so a timeout, a shutdown or the start after a crash ends all it started),
// stdout and stderr captured together, and read back as read_task_output reads a task: the
// last lines (repeats collapsed) and the test counts of the runner it recognises.
import { spawn } from "node:child_process";
import type { Clock } from "../core/clock.ts";
import { endGroup } from "../tasks/process-groups.ts";
import { toPlainLines } from "../tasks/plain-text.ts";
import { TAIL_DEFAULT, tailLines } from "../tasks/tail.ts";
import { testCounts, type TestCounts } from "../tasks/test-counts.ts";

/** Output kept per run: the end, where the summary is. */
const KEEP_BYTES = 4 * 1024 * 1024;

export interface TestRun {
  exitCode: number | null;
  /** Ended by the time limit (or a shutdown). */
  stopped: "timeout" | "shutdown" | null;
  tail: string[];
  truncated: boolean;
  counts?: TestCounts;
}

export interface TestRunOptions {
  clock: Clock;
  timeoutMs: number;
  /** The group id, as soon as it exists: stored, so a relay that crashed can end it. */
  onStart?(pgid: number): void;
  /** Secrets out of the output (the relay's mask). */
  mask?(text: string): string;
  signal?: AbortSignal;
}

export function runTestCommand(command: string, cwd: string, o: TestRunOptions): Promise<TestRun> {
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", command], {
      cwd,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: commandEnv(),
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let dropped = false;
    const keep = (b: Buffer) => {
      chunks.push(b);
      size += b.length;
      while (size > KEEP_BYTES && chunks.length > 1) {
        size -= chunks.shift()!.length;
        dropped = true;
      }
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    let stopped: TestRun["stopped"] = null;
    const stop = (why: "timeout" | "shutdown") => {
      stopped = why;
      if (child.pid) void endGroup(child.pid);
    };
    const timer = new AbortController();
    void o.clock.until(o.clock.now() + o.timeoutMs, timer.signal).then(() => !timer.signal.aborted && stop("timeout"));
    const onAbort = () => stop("shutdown");
    o.signal?.addEventListener("abort", onAbort, { once: true });
    if (child.pid) o.onStart?.(child.pid);
    let done = false;
    const finish = (exitCode: number | null, extra = "") => {
      if (done) return;
      done = true;
      timer.abort();
      o.signal?.removeEventListener("abort", onAbort);
      let text = Buffer.concat(chunks).toString("utf8") + extra;
      if (o.mask) text = o.mask(text);
      const lines = toPlainLines(text);
      if (stopped === "timeout")
        lines.push(`[the test command was stopped after ${Math.round(o.timeoutMs / 60_000)} min]`);
      const { tail, truncated } = tailLines(lines, TAIL_DEFAULT);
      const counts = testCounts(lines);
      resolve({ exitCode, stopped, tail, truncated: truncated || dropped, ...(counts ? { counts } : {}) });
    };
    child.on("error", (e) => finish(null, `\n${e.message}`));
    // What the command left running (a server it started and did not stop) would hold the
    // output open for good: the group goes when its shell exits, and the output closes.
    child.on("exit", () => child.pid && void endGroup(child.pid));
    child.on("close", (code) => finish(code));
  });
}

/** The relay's environment, less what would tie the command to whoever started the relay: a
 * relay started by `node --test` passes NODE_TEST_CONTEXT on, and a `node --test` in the
 * command would then report to that runner instead of failing on its own. */
function commandEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  return env;
}
