// One agent process held by the keeper. It leads its own process group (spawned detached),
// so ending `-pid` ends the CLI and everything it started in its group. Background tasks
// the agent reports with a pgid (`_oar/task`) are remembered too: when the keeper gives up
// (the orphan bound, SIGTERM) it ends those groups as well. Node built-ins only.

import { spawn, type ChildProcess } from "node:child_process";
import { LineSplitter, type JsonObject, type SpawnSpec } from "./protocol.ts";
import { WorkerRpc, type Outlet } from "./worker-rpc.ts";

const STDERR_TAIL = 2000;

export interface WorkerEvents {
  /** The attached connection, if any (read on every line). */
  outlet(): Outlet | null;
  exited(w: HeldWorker): void;
}

export function killGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // the group is gone already
  }
}

export class HeldWorker {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly rpc: WorkerRpc;
  alive = true;
  state: JsonObject | null = null;
  stderrTail = "";
  exit: { code: number | null; signal: string | null } | null = null;
  private taskGroups = new Set<number>();

  constructor(
    readonly id: string,
    readonly session: string,
    spec: SpawnSpec,
    private events: WorkerEvents,
  ) {
    this.rpc = new WorkerRpc(id, (method, params) => this.noticed(method, params));
    this.child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    this.pid = this.child.pid ?? 0;
    this.child.stdin!.on("error", () => {}); // EPIPE after the agent died: its exit says it
    const lines = new LineSplitter((line) => this.rpc.fromAgent(line, this.events.outlet()));
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (d: string) => lines.push(d));
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (d: string) => {
      this.stderrTail = (this.stderrTail + d).slice(-STDERR_TAIL);
      this.events.outlet()?.send({ t: "stderr", id, chunk: d });
    });
    let done = false;
    const gone = (code: number | null, signal: string | null) => {
      if (done) return;
      done = true;
      this.alive = false;
      this.exit = { code, signal };
      this.events.exited(this);
    };
    this.child.once("error", (err) => {
      this.stderrTail = `${this.stderrTail}\n${err.message}`.slice(-STDERR_TAIL);
      gone(null, null);
    });
    this.child.once("exit", (code, signal) => {
      // Lines the agent wrote just before it ended come first; a grandchild holding the
      // pipe open must not hold the exit back for long.
      const t = setTimeout(() => gone(code, signal), 300);
      this.child.stdout!.once("end", () => {
        clearTimeout(t);
        lines.end();
        gone(code, signal);
      });
      if (this.child.stdout!.readableEnded) {
        clearTimeout(t);
        gone(code, signal);
      }
    });
  }

  private noticed(method: string, params: JsonObject): void {
    if (method !== "_oar/task" || typeof params.pgid !== "number" || !Number.isInteger(params.pgid) || params.pgid <= 1)
      return;
    if (params.status === "running") this.taskGroups.add(params.pgid);
    else this.taskGroups.delete(params.pgid);
  }

  write(line: string, gen: number): void {
    if (!this.alive || !this.child.stdin!.writable) return;
    this.child.stdin!.write(`${this.rpc.fromRelay(line, gen)}\n`);
  }

  kill(): void {
    if (this.pid > 0 && !killGroup(this.pid, "SIGKILL")) this.child.kill("SIGKILL");
  }

  /** Closes stdin so the agent can end on its own; its group is killed 2 s later if it did not. */
  end(): void {
    this.child.stdin!.end();
    setTimeout(() => {
      if (this.alive) this.kill();
    }, 2000).unref();
  }

  /** Asks the agent's group and its tasks' groups to end (the keeper is giving up). */
  terminate(signal: NodeJS.Signals): void {
    if (this.pid > 0 && this.alive && !killGroup(this.pid, signal)) this.child.kill(signal);
    for (const g of this.taskGroups) killGroup(g, signal);
  }

  /** SIGKILL whatever of it is left, even after its leader ended (grandchildren, tasks). */
  finish(): void {
    if (this.pid > 0) killGroup(this.pid, "SIGKILL");
    for (const g of this.taskGroups) killGroup(g, "SIGKILL");
  }
}
