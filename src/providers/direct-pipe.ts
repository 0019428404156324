import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { AgentPipe, LineInfo, PipeSpec } from "./agent-pipe.ts";

// The agent as the relay's own child (stdio pipes): it ends with the relay. Used only when
// the keeper cannot be started (providers/worker-pipes.ts says why in the log).

export function spawnDirect(id: string, spec: PipeSpec): AgentPipe {
  const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ["pipe", "pipe", "pipe"] });
  let tail = "";
  const lines: ((line: string, info: LineInfo) => void)[] = [];
  const live = { replay: false, delivered: false };
  child.stderr!.on("data", (d: Buffer) => {
    tail = (tail + d.toString()).slice(-2000);
  });
  createInterface({ input: child.stdout!, crlfDelay: Infinity }).on("line", (l) => {
    for (const fn of lines) fn(l, live);
  });
  // A write after the process died must not throw into the relay.
  child.stdin!.on("error", () => {});
  let alive = true;
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      alive = false;
      resolve({ code, signal });
    });
    child.once("error", (err) => {
      tail += `\n${err.message}`;
      alive = false;
      resolve({ code: null, signal: null });
    });
  });
  return {
    id,
    get pid() {
      return child.pid ?? 0;
    },
    write: (line) => {
      if (alive && child.stdin!.writable) child.stdin!.write(`${line}\n`);
    },
    onLine: (fn) => void lines.push(fn),
    // A direct child never outlives its relay: there is never an earlier prompt's answer.
    onPromptResult: () => {},
    exited,
    stderrTail: () => tail,
    setState: () => {},
    kill: () => {
      if (alive) child.kill("SIGKILL");
    },
    end: () => {
      if (!alive) return;
      child.stdin!.end();
      setTimeout(() => {
        if (alive) child.kill("SIGKILL");
      }, 2000).unref();
    },
  };
}
