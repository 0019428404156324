// The relay ↔ keeper protocol: one JSON object per line over the keeper's unix socket.
// Imported by the keeper process itself, so Node built-ins only (no zod): the keeper must
// start fast and small. Messages are checked by hand at the boundary (readRelayMessage /
// readKeeperMessage); a line that is not one of them is dropped, never thrown.
//
// Worker keys: `id` on the wire is the keeper's key for one agent process, chosen by the
// client when it spawns (unique for the keeper's lifetime); `session` is the relay session
// it belongs to. They differ so a worker that is still dying (kill sent, exit not yet seen)
// and its session's next worker never share a key.

import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import type { Socket } from "node:net";
import { join, resolve } from "node:path";

export const PROTOCOL_VERSION = 1;

/** Longest socket path we use in place; sun_path holds 108 bytes on Linux, 104 on macOS. */
const SUN_PATH_MAX = 100;

/** Where a data folder's keeper listens: in the folder, or in the temp dir (named from the
 * folder's path) when that path would not fit in a unix socket address. */
export function socketPath(dataDir: string): string {
  // Absolute: the keeper runs in `/`, the relay wherever it was started.
  const dir = resolve(dataDir);
  const inPlace = join(dir, "keeper.sock");
  if (Buffer.byteLength(inPlace) <= SUN_PATH_MAX) return inPlace;
  const tag = createHash("sha1").update(dir).digest("hex").slice(0, 12);
  return join(tmpdir(), `oar-keeper-${tag}.sock`);
}

export const pidFile = (dataDir: string): string => join(resolve(dataDir), "keeper.pid");
export const logFile = (dataDir: string): string => join(resolve(dataDir), "keeper.log");

export type JsonObject = Record<string, unknown>;

export interface SpawnSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/** A worker as the keeper reports it in `welcome`. */
export interface WireWorker {
  id: string;
  session: string;
  pid: number;
  alive: boolean;
  state: JsonObject | null;
  /** A session/prompt sent by an earlier relay connection is outstanding, or its answer is
   * kept undelivered: attaching replays the turn and ends with `promptResult`. */
  resumable: { promptParams: unknown } | null;
}

export type RelayMessage =
  | { t: "hello"; v: number; relayPid: number; orphanMs?: number }
  | ({ t: "spawn"; id: string; session: string } & SpawnSpec)
  | { t: "in"; id: string; line: string }
  | { t: "setState"; id: string; state: JsonObject }
  | { t: "attach"; id: string }
  | { t: "kill"; id: string }
  | { t: "end"; id: string };

export type KeeperMessage =
  | { t: "welcome"; v: number; keeperPid: number; workers: WireWorker[] }
  | { t: "spawned"; id: string; pid: number }
  | { t: "out"; id: string; line: string; replay?: true; delivered?: boolean }
  | { t: "stderr"; id: string; chunk: string }
  | { t: "exit"; id: string; code: number | null; signal: string | null; stderr: string }
  | { t: "promptResult"; id: string; response: { result?: unknown; error?: unknown } };

export const encode = (m: RelayMessage | KeeperMessage): string => `${JSON.stringify(m)}\n`;

const corked = new WeakSet<Socket>();

/** Writes a message; the messages one task writes (and the promise jobs it starts) leave in
 * one write: a turn's state and its prompt, an agent's last chunk and its answer. Fewer
 * system calls, and the other side wakes once for them instead of once each. */
export function corkedWrite(socket: Socket, data: string): void {
  if (!corked.has(socket)) {
    corked.add(socket);
    socket.cork();
    process.nextTick(() => {
      corked.delete(socket);
      socket.uncork();
    });
  }
  socket.write(data);
}

const isObj = (v: unknown): v is JsonObject => !!v && typeof v === "object" && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === "string";
const isStrMap = (v: unknown): v is Record<string, string> => isObj(v) && Object.values(v).every(isStr);

function parse(line: string): JsonObject | null {
  try {
    const v: unknown = JSON.parse(line);
    return isObj(v) ? v : null;
  } catch {
    return null;
  }
}

/** One line from the relay, or null when it is not a message the keeper knows. */
export function readRelayMessage(line: string): RelayMessage | null {
  const m = parse(line);
  if (!m) return null;
  const id = m.id;
  switch (m.t) {
    case "hello":
      if (typeof m.v !== "number" || typeof m.relayPid !== "number") return null;
      return {
        t: "hello",
        v: m.v,
        relayPid: m.relayPid,
        ...(typeof m.orphanMs === "number" && m.orphanMs > 0 ? { orphanMs: m.orphanMs } : {}),
      };
    case "spawn":
      if (!isStr(id) || !isStr(m.session) || !isStr(m.command) || !isStr(m.cwd)) return null;
      if (!Array.isArray(m.args) || !m.args.every(isStr) || !isStrMap(m.env)) return null;
      return { t: "spawn", id, session: m.session, command: m.command, args: m.args, env: m.env, cwd: m.cwd };
    case "in":
      return isStr(id) && isStr(m.line) ? { t: "in", id, line: m.line } : null;
    case "setState":
      return isStr(id) && isObj(m.state) ? { t: "setState", id, state: m.state } : null;
    case "attach":
    case "kill":
    case "end":
      return isStr(id) ? { t: m.t, id } : null;
    default:
      return null;
  }
}

/** One line from the keeper, or null when it is not a message the client knows. */
export function readKeeperMessage(line: string): KeeperMessage | null {
  const m = parse(line);
  if (!m) return null;
  const id = m.id;
  switch (m.t) {
    case "welcome":
      if (typeof m.v !== "number" || typeof m.keeperPid !== "number" || !Array.isArray(m.workers)) return null;
      return { t: "welcome", v: m.v, keeperPid: m.keeperPid, workers: m.workers.filter(isObj).flatMap(readWireWorker) };
    case "spawned":
      return isStr(id) && typeof m.pid === "number" ? { t: "spawned", id, pid: m.pid } : null;
    case "out":
      if (!isStr(id) || !isStr(m.line)) return null;
      return {
        t: "out",
        id,
        line: m.line,
        ...(m.replay === true ? { replay: true as const, delivered: m.delivered === true } : {}),
      };
    case "stderr":
      return isStr(id) && isStr(m.chunk) ? { t: "stderr", id, chunk: m.chunk } : null;
    case "exit":
      if (!isStr(id)) return null;
      return {
        t: "exit",
        id,
        code: typeof m.code === "number" ? m.code : null,
        signal: isStr(m.signal) ? m.signal : null,
        stderr: isStr(m.stderr) ? m.stderr : "",
      };
    case "promptResult":
      return isStr(id) && isObj(m.response) ? { t: "promptResult", id, response: m.response } : null;
    default:
      return null;
  }
}

function readWireWorker(w: JsonObject): WireWorker[] {
  if (!isStr(w.id) || !isStr(w.session) || typeof w.pid !== "number") return [];
  const r = w.resumable;
  return [
    {
      id: w.id,
      session: w.session,
      pid: w.pid,
      alive: w.alive === true,
      state: isObj(w.state) ? w.state : null,
      resumable: isObj(r) && "promptParams" in r ? { promptParams: r.promptParams } : null,
    },
  ];
}

/** Splits a byte stream into lines; a partial last line waits for the rest. */
export class LineSplitter {
  private rest = "";
  constructor(private onLine: (line: string) => void) {}
  push(chunk: string): void {
    const parts = (this.rest + chunk).split("\n");
    this.rest = parts.pop()!;
    for (const p of parts) {
      const line = p.endsWith("\r") ? p.slice(0, -1) : p;
      if (line.trim() !== "") this.onLine(line);
    }
  }
  /** The stream ended: a last line without a newline still counts. */
  end(): void {
    const last = this.rest;
    this.rest = "";
    if (last.trim() !== "") this.onLine(last);
  }
}
