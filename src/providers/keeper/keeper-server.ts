// The keeper's socket side: one relay connection at a time (a new `hello` replaces the
// old one), the workers it holds, and the orphan bound — with no relay attached for
// `orphanMs`, or none attached and no worker left, the keeper ends its agents and itself.
// Node built-ins only.

import { createServer, type Server, type Socket } from "node:net";
import { HeldWorker } from "./held-worker.ts";
import {
  LineSplitter,
  PROTOCOL_VERSION,
  corkedWrite,
  encode,
  readRelayMessage,
  type KeeperMessage,
  type RelayMessage,
  type WireWorker,
} from "./protocol.ts";
import type { Outlet } from "./worker-rpc.ts";

export const log = (msg: string): void => {
  process.stderr.write(`${new Date().toISOString()} keeper[${process.pid}] ${msg}\n`);
};

interface Conn extends Outlet {
  socket: Socket;
  /** Workers this connection took (spawned or attached); others' lines wait for it. */
  attached: Set<string>;
  greeted: boolean;
}

export class KeeperServer {
  readonly server: Server;
  private workers = new Map<string, HeldWorker>();
  private conn: Conn | null = null;
  private gens = 0;
  private orphanTimer: NodeJS.Timeout | null = null;
  private everGreeted = false;
  private shuttingDown = false;

  /** `release` runs as the keeper stops listening (socket and pid file go, so a new keeper
   * can start while this one is still ending its agents); `onShutdown` when all is done.
   * `firstBoundMs`: what is left of the orphan bound the keeper armed as it started. */
  constructor(
    private orphanMs: number,
    private release: () => void,
    private onShutdown: () => void,
    firstBoundMs = orphanMs,
  ) {
    this.server = createServer((s) => this.connected(s));
    this.armOrphanBound(firstBoundMs);
  }

  private connected(socket: Socket): void {
    const conn: Conn = {
      gen: ++this.gens,
      socket,
      attached: new Set(),
      greeted: false,
      send: (m: KeeperMessage) => {
        if (!socket.destroyed) corkedWrite(socket, encode(m));
      },
    };
    const lines = new LineSplitter((line) => {
      const m = readRelayMessage(line);
      if (!m) return log(`ignored a line that is not a relay message: ${line.slice(0, 200)}`);
      try {
        this.handle(conn, m);
      } catch (e) {
        log(`message ${m.t} failed: ${(e as Error).message}`);
      }
    });
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => lines.push(d));
    socket.on("error", () => {});
    socket.on("close", () => {
      if (this.conn !== conn) return;
      this.conn = null;
      log("relay detached");
      this.armOrphanBound();
      this.endIfIdle();
    });
  }

  private handle(conn: Conn, m: RelayMessage): void {
    if (m.t === "hello") {
      this.hello(conn, m);
      return;
    }
    if (this.conn !== conn) return; // only the greeted connection speaks for the relay
    if (m.t === "spawn") {
      this.spawn(conn, m);
      return;
    }
    const w = this.workers.get(m.id);
    if (m.t === "attach") {
      this.attach(conn, m.id, w);
      return;
    }
    if (!w) return;
    // Writing to a worker is taking it: its answers must reach this connection.
    if (m.t === "in" && !conn.attached.has(m.id)) this.attach(conn, m.id, w);
    if (m.t === "in") w.write(m.line, conn.gen);
    else if (m.t === "setState") {
      w.state = m.state;
      // The relay clears its turnId once the turn's end is written (providers/workers.ts recorded).
      if (!m.state || typeof (m.state as { turnId?: unknown }).turnId !== "string") w.rpc.ack();
    } else if (m.t === "kill") w.kill();
    else if (m.t === "end") w.end();
  }

  private hello(conn: Conn, m: Extract<RelayMessage, { t: "hello" }>): void {
    if (m.v !== PROTOCOL_VERSION) {
      log(`relay ${m.relayPid} speaks protocol ${m.v}, this keeper ${PROTOCOL_VERSION}: refused`);
      conn.socket.destroy();
      return;
    }
    const old = this.conn;
    this.conn = conn;
    conn.greeted = true;
    this.everGreeted = true;
    if (m.orphanMs) this.orphanMs = m.orphanMs;
    if (old) old.socket.destroy();
    if (this.orphanTimer) clearTimeout(this.orphanTimer);
    this.orphanTimer = null;
    log(`relay ${m.relayPid} attached (${this.workers.size} worker(s) held)`);
    const workers: WireWorker[] = [...this.workers.values()].map((w) => ({
      id: w.id,
      session: w.session,
      pid: w.pid,
      alive: w.alive,
      state: w.state,
      // A dead agent's turn resumes only if its answer came before it ended.
      resumable: w.alive || w.rpc.answerKept ? w.rpc.resumable(conn.gen) : null,
    }));
    conn.send({ t: "welcome", v: PROTOCOL_VERSION, keeperPid: process.pid, workers });
  }

  private spawn(conn: Conn, m: Extract<RelayMessage, { t: "spawn" }>): void {
    if (this.workers.has(m.id)) {
      conn.send({ t: "exit", id: m.id, code: null, signal: null, stderr: `worker ${m.id} exists already` });
      return;
    }
    const w = new HeldWorker(m.id, m.session, m, {
      outlet: () => (this.conn?.attached.has(m.id) ? this.conn : null),
      exited: (x) => this.exited(x),
    });
    this.workers.set(m.id, w);
    conn.attached.add(m.id);
    if (w.pid > 0) conn.send({ t: "spawned", id: m.id, pid: w.pid });
    log(`spawned ${m.id} (${m.command}) pid ${w.pid}`);
  }

  private attach(conn: Conn, id: string, w: HeldWorker | undefined): void {
    if (!w) {
      conn.send({ t: "exit", id, code: null, signal: null, stderr: "the keeper holds no such worker" });
      return;
    }
    conn.attached.add(id);
    if (w.stderrTail) conn.send({ t: "stderr", id, chunk: w.stderrTail });
    w.rpc.attach(conn);
    if (!w.alive) this.reportExit(conn, w);
  }

  private exited(w: HeldWorker): void {
    log(`worker ${w.id} pid ${w.pid} exited (${w.exit?.code ?? w.exit?.signal})`);
    const c = this.conn;
    if (c?.attached.has(w.id)) this.reportExit(c, w);
    this.endIfIdle();
  }

  private reportExit(conn: Conn, w: HeldWorker): void {
    this.workers.delete(w.id);
    conn.attached.delete(w.id);
    conn.send({
      t: "exit",
      id: w.id,
      code: w.exit?.code ?? null,
      signal: w.exit?.signal ?? null,
      stderr: w.stderrTail,
    });
  }

  private armOrphanBound(ms = this.orphanMs): void {
    if (this.orphanTimer) clearTimeout(this.orphanTimer);
    this.orphanTimer = setTimeout(() => {
      log(`no relay for ${this.orphanMs} ms: ending`);
      void this.shutdown();
    }, ms);
  }

  /** No relay and no live worker (after a relay has been here): nothing to keep. */
  private endIfIdle(): void {
    if (this.conn || !this.everGreeted) return;
    if ([...this.workers.values()].some((w) => w.alive)) return;
    log("no relay and no worker left: ending");
    void this.shutdown();
  }

  /** Ends every agent (SIGTERM to its group and its tasks' groups, SIGKILL 2 s later) and
   * then the keeper. */
  async shutdown(): Promise<void> {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    if (this.orphanTimer) clearTimeout(this.orphanTimer);
    this.server.close();
    this.release();
    this.conn?.socket.destroy();
    const all = [...this.workers.values()];
    for (const w of all) w.terminate("SIGTERM");
    const deadline = Date.now() + 2000;
    while (all.some((w) => w.alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const w of all) w.finish();
    this.onShutdown();
  }
}
