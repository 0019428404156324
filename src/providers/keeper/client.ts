// The relay's side of the keeper: connects to the data folder's keeper (starting one when
// asked), spawns agents through it and takes kept ones back after a restart. Each agent is
// an AgentPipe: JSON-RPC lines both ways, its exit, its stderr tail, kill and end.
//
// Delivery rule (the seam with the relay's AcpWorker): lines and a promptResult that arrive
// before their handler is registered are held by the pipe and handed over on the next
// macrotask after `onLine` / `onPromptResult` is called, in arrival order. So `attach(id)`
// (and `spawn`) may return before the caller wires its handlers: nothing is lost, and
// nothing is delivered synchronously inside the registration call.
//
// `exited` resolves when the agent ended, or when the keeper went away (crashed) with the
// connection; it does not resolve on `detach()` — the agents live on without this relay.

import { connect as netConnect, type Socket } from "node:net";
import { randomBytes } from "node:crypto";
import { lstatSync } from "node:fs";
import {
  LineSplitter,
  PROTOCOL_VERSION,
  corkedWrite,
  encode,
  readKeeperMessage,
  socketPath,
  type KeeperMessage,
  type RelayMessage,
  type WireWorker,
} from "./protocol.ts";
import { startKeeper } from "./start-keeper.ts";

export interface AgentPipe {
  readonly id: string; // the relay session id the worker belongs to
  readonly pid: number; // the agent process (leads its own process group)
  write(line: string): void; // one JSON-RPC line for the agent (no trailing newline)
  /** Lines from the agent. `replay`: part of the running turn's log sent again after an
   * attach; `delivered`: that line had already been sent to a previous relay connection. */
  onLine(fn: (line: string, info: { replay: boolean; delivered: boolean }) => void): void;
  /** The response to a session/prompt sent by a previous relay connection (resumed turn). */
  onPromptResult(fn: (response: { result?: unknown; error?: unknown }) => void): void;
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  stderrTail(): string;
  setState(state: Record<string, unknown>): void;
  kill(): void; // SIGKILL the agent's process group
  end(): void; // close its stdin; SIGKILL the group 2 s later if alive
}

export interface KeptWorker {
  id: string;
  pid: number;
  alive: boolean;
  state: Record<string, unknown> | null;
  resumable: { promptParams: unknown } | null;
}

export interface SpawnSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

type LineInfo = { replay: boolean; delivered: boolean };
type PromptResponse = { result?: unknown; error?: unknown };
const STDERR_TAIL = 2000;
const WELCOME_TIMEOUT_MS = 15_000;

class KeptPipe implements AgentPipe {
  private lineFn: ((line: string, info: LineInfo) => void) | null = null;
  private lines: [string, LineInfo][] = [];
  private resultFn: ((r: PromptResponse) => void) | null = null;
  private results: PromptResponse[] = [];
  private tail = "";
  private done = false;
  private resolveExit!: (e: { code: number | null; signal: string | null }) => void;
  readonly exited: Promise<{ code: number | null; signal: string | null }>;

  constructor(
    readonly id: string,
    readonly key: string,
    public pidValue: number,
    private send: (m: RelayMessage) => void,
  ) {
    this.exited = new Promise((r) => (this.resolveExit = r));
  }

  get pid(): number {
    return this.pidValue;
  }

  write(line: string): void {
    if (!this.done) this.send({ t: "in", id: this.key, line });
  }

  onLine(fn: (line: string, info: LineInfo) => void): void {
    this.lineFn = fn;
    if (this.lines.length) setImmediate(() => this.drainLines());
  }

  onPromptResult(fn: (response: PromptResponse) => void): void {
    this.resultFn = fn;
    if (this.results.length) setImmediate(() => this.drainResults());
  }

  stderrTail(): string {
    return this.tail;
  }

  setState(state: Record<string, unknown>): void {
    if (!this.done) this.send({ t: "setState", id: this.key, state });
  }

  kill(): void {
    if (!this.done) this.send({ t: "kill", id: this.key });
  }

  end(): void {
    if (!this.done) this.send({ t: "end", id: this.key });
  }

  // ---- from the keeper ----
  line(line: string, info: LineInfo): void {
    if (!this.lineFn || this.lines.length) this.lines.push([line, info]);
    else this.lineFn(line, info);
  }

  promptResult(r: PromptResponse): void {
    if (!this.resultFn || this.results.length || this.lines.length) {
      this.results.push(r);
      // After the replayed lines it follows, never before them.
      if (this.resultFn && !this.lines.length) setImmediate(() => this.drainResults());
    } else this.resultFn(r);
  }

  stderr(chunk: string): void {
    this.tail = (this.tail + chunk).slice(-STDERR_TAIL);
  }

  gone(code: number | null, signal: string | null, stderr?: string): void {
    if (this.done) return;
    this.done = true;
    if (stderr) this.tail = stderr.slice(-STDERR_TAIL);
    // Held lines first: the exit is the last thing a caller hears.
    if (this.lines.length || this.results.length) setImmediate(() => this.resolveExit({ code, signal }));
    else this.resolveExit({ code, signal });
  }

  private drainLines(): void {
    const fn = this.lineFn;
    if (!fn) return;
    while (this.lines.length) {
      const [line, info] = this.lines.shift()!;
      fn(line, info);
    }
    if (this.results.length) this.drainResults();
  }

  private drainResults(): void {
    const fn = this.resultFn;
    if (!fn || this.lines.length) return;
    while (this.results.length) fn(this.results.shift()!);
  }
}

/** A socket file someone else owns (possible in the shared temp dir) is not our keeper:
 * the relay would hand it every agent's environment. */
function ownedByUs(path: string): boolean {
  try {
    return lstatSync(path).uid === process.getuid?.();
  } catch {
    return true; // gone meanwhile: connect says so
  }
}

class KeeperGone extends Error {}

function tryConnect(path: string): Promise<Socket | null> {
  if (process.getuid && !ownedByUs(path))
    return Promise.reject(new Error(`${path} belongs to another user: not connecting to it`));
  return new Promise((resolve) => {
    const s = netConnect(path);
    s.once("connect", () => {
      s.removeAllListeners("error");
      resolve(s);
    });
    s.once("error", () => resolve(null));
  });
}

export class KeeperClient {
  private pipes = new Map<string, KeptPipe>();
  private spawning = new Map<string, { resolve: (p: KeptPipe) => void; reject: (e: Error) => void }>();
  private workers: WireWorker[] = [];
  private detached = false;
  private counter = 0;
  keeperPid = 0;
  readonly closed: Promise<void>;

  /** Connects to the data folder's keeper; starts one when none answers and `start` is set;
   * null when none runs and `start` is false. Throws when a keeper cannot be started or
   * does not answer `hello` (the caller may then spawn directly, saying why). */
  static async connect(dataDir: string, opts: { start: boolean; orphanMs?: number }): Promise<KeeperClient | null> {
    const path = socketPath(dataDir);
    for (let attempt = 1; ; attempt++) {
      let socket = await tryConnect(path);
      if (!socket) {
        if (!opts.start) return null;
        socket = await startKeeper(dataDir, opts.orphanMs, () => tryConnect(path));
      }
      const client = new KeeperClient(socket);
      try {
        await client.greet(opts.orphanMs);
        return client;
      } catch (err) {
        // A keeper that was ending by itself (no relay, no worker) as we came: once more.
        if (attempt >= 2 || !(err instanceof KeeperGone)) throw err;
      }
    }
  }

  private constructor(private socket: Socket) {
    this.closed = new Promise((resolve) => {
      socket.on("close", () => {
        for (const p of this.pipes.values())
          if (!this.detached) p.gone(null, null, `${p.stderrTail()}\nthe keeper went away`.trim());
        for (const s of this.spawning.values()) s.reject(new Error("the keeper went away while starting the agent"));
        this.pipes.clear();
        this.spawning.clear();
        resolve();
      });
    });
    socket.on("error", () => {});
  }

  private greet(orphanMs?: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.socket.destroy();
        reject(new Error(`the keeper did not answer hello within ${WELCOME_TIMEOUT_MS} ms`));
      }, WELCOME_TIMEOUT_MS);
      this.socket.once("close", () => {
        clearTimeout(timer);
        reject(new KeeperGone("the keeper closed the connection before its welcome"));
      });
      const lines = new LineSplitter((line) => {
        const m = readKeeperMessage(line);
        if (!m) return;
        if (m.t === "welcome") {
          clearTimeout(timer);
          this.keeperPid = m.keeperPid;
          this.workers = m.workers;
          resolve();
        } else this.received(m);
      });
      this.socket.setEncoding("utf8");
      this.socket.on("data", (d: string) => lines.push(d));
      this.send({ t: "hello", v: PROTOCOL_VERSION, relayPid: process.pid, ...(orphanMs ? { orphanMs } : {}) });
    });
  }

  private send(m: RelayMessage): void {
    if (!this.socket.destroyed && !this.detached) corkedWrite(this.socket, encode(m));
  }

  private received(m: KeeperMessage): void {
    if (m.t === "welcome") return;
    const p = this.pipes.get(m.id);
    if (m.t === "spawned") {
      const s = this.spawning.get(m.id);
      this.spawning.delete(m.id);
      if (p) p.pidValue = m.pid;
      if (s && p) s.resolve(p);
      return;
    }
    if (!p) return;
    if (m.t === "out") p.line(m.line, { replay: m.replay === true, delivered: m.delivered === true });
    else if (m.t === "stderr") p.stderr(m.chunk);
    else if (m.t === "promptResult") p.promptResult(m.response);
    else if (m.t === "exit") {
      this.pipes.delete(m.id);
      const s = this.spawning.get(m.id);
      this.spawning.delete(m.id);
      p.gone(m.code, m.signal, m.stderr);
      s?.reject(new Error(`the agent did not start: ${m.stderr.trim() || `exit ${m.code ?? m.signal}`}`));
    }
  }

  /** The workers the keeper held when this client said hello. */
  kept(): KeptWorker[] {
    return this.workers.map((w) => ({
      id: w.session,
      pid: w.pid,
      alive: w.alive,
      state: w.state,
      resumable: w.resumable,
    }));
  }

  spawn(id: string, spec: SpawnSpec): Promise<AgentPipe> {
    const key = `${id}~${(++this.counter).toString(36)}${randomBytes(3).toString("hex")}`;
    const pipe = new KeptPipe(id, key, 0, (m) => this.send(m));
    this.pipes.set(key, pipe);
    return new Promise((resolve, reject) => {
      if (this.socket.destroyed || this.detached) return reject(new Error("the keeper connection is closed"));
      this.spawning.set(key, { resolve, reject });
      this.send({
        t: "spawn",
        id: key,
        session: id,
        command: spec.command,
        args: spec.args,
        env: spec.env,
        cwd: spec.cwd,
      });
    });
  }

  /** Takes back a kept worker (by session id; the live one when several are listed): its
   * replay (if a prompt is outstanding), the kept prompt answer, buffered lines and the
   * agent's unanswered requests, then live lines (see the delivery rule above). A session
   * the keeper does not hold gets a pipe whose `exited` resolves at once. */
  attach(id: string): AgentPipe {
    const w = this.workers.find((x) => x.session === id && x.alive) ?? this.workers.find((x) => x.session === id);
    const key = w?.id ?? `${id}~unknown`;
    const pipe = new KeptPipe(id, key, w?.pid ?? 0, (m) => this.send(m));
    if (!w) {
      pipe.gone(null, null, "the keeper holds no worker for this session");
      return pipe;
    }
    this.pipes.set(key, pipe);
    this.send({ t: "attach", id: key });
    return pipe;
  }

  /** Drops the connection; the keeper keeps the workers (relay shutting down). */
  detach(): void {
    if (this.detached) return;
    this.detached = true;
    this.socket.end();
  }
}
