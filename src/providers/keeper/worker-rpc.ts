// The JSON-RPC bookkeeping of one kept worker, between the agent's stdio and whichever
// relay connection is attached. Node built-ins only (runs inside the keeper).
//
// - Requests the relay sends get the keeper's own increasing ids: a new relay's ACP
//   connection starts at 0 again and must not take an answer the agent still owes the old
//   one. The answer goes back under the relay's id only to the connection that asked.
// - A session/prompt opens a turn log: every agent line until its answer, marked delivered
//   or not. When the asking connection is gone, the answer is kept, and the next attach
//   replays the log and then hands over the answer as `promptResult`. A delivered answer is
//   kept too, until the relay's next state says the turn is recorded (`ack`): a relay killed
//   between receiving the answer and writing the turn's end would otherwise lose the reply.
// - Requests the agent sent and nobody answered yet are sent again on attach.
// - Other agent lines while no relay listens are buffered (bounded).

import type { JsonObject, KeeperMessage } from "./protocol.ts";

/** The relay connection attached to this worker (`gen` tells connections apart). */
export interface Outlet {
  gen: number;
  send(m: KeeperMessage): void;
}

interface Pending {
  gen: number;
  relayId: unknown;
  prompt: boolean;
}
interface Logged {
  line: string;
  delivered: boolean;
  taskOutput: boolean;
}
interface Turn {
  keeperId: number;
  params: unknown;
  log: BoundedLines;
  result: { result?: unknown; error?: unknown } | null;
  /** The connection the answer went to (its own line or promptResult); null: not yet. */
  handedTo: number | null;
}

export const BUFFER_BYTES = 8 * 1024 * 1024;
export const TURN_LOG_BYTES = 32 * 1024 * 1024;
const TASK_OUTPUT = "_oar/task_output";

/** Lines kept for later, bounded in bytes: task output (kept in the task's own log by the
 * relay, and the least needed to rebuild a reply) is dropped first, then the oldest line. */
class BoundedLines {
  items: Logged[] = [];
  private bytes = 0;
  constructor(private max: number) {}
  push(item: Logged): void {
    this.items.push(item);
    this.bytes += item.line.length;
    while (this.bytes > this.max && this.items.length > 1) {
      let i = this.items.findIndex((x) => x.taskOutput);
      if (i < 0) i = 0;
      this.bytes -= this.items[i]!.line.length;
      this.items.splice(i, 1);
    }
  }
  take(): Logged[] {
    const all = this.items;
    this.items = [];
    this.bytes = 0;
    return all;
  }
}

function parse(line: string): JsonObject | null {
  try {
    const v: unknown = JSON.parse(line);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : null;
  } catch {
    return null;
  }
}

const hasId = (m: JsonObject): boolean => m.id !== undefined && m.id !== null;

export class WorkerRpc {
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private turn: Turn | null = null;
  /** The agent's own requests not answered yet, by JSON of their id, in arrival order. */
  private agentRequests = new Map<string, { line: string; delivered: boolean }>();
  private buffer = new BoundedLines(BUFFER_BYTES);

  constructor(
    private id: string,
    private onNotice?: (method: string, params: JsonObject) => void,
  ) {}

  /** A session/prompt of a connection that is gone is outstanding or its answer is kept. */
  resumable(currentGen: number | null): { promptParams: unknown } | null {
    const t = this.turn;
    if (!t) return null;
    const asker = this.pending.get(t.keeperId);
    if (t.result) return t.handedTo === currentGen ? null : { promptParams: t.params };
    if (asker && asker.gen !== currentGen) return { promptParams: t.params };
    return null;
  }

  /** The running turn's answer came and waits for a relay to take it. */
  get answerKept(): boolean {
    return !!this.turn?.result;
  }

  /** A line the relay (connection `gen`) sends to the agent: what to write to its stdin. */
  fromRelay(line: string, gen: number): string {
    const m = parse(line);
    if (!m) return line;
    if (typeof m.method === "string" && hasId(m)) {
      const k = this.nextId++;
      const prompt = m.method === "session/prompt";
      this.pending.set(k, { gen, relayId: m.id, prompt });
      if (prompt)
        this.turn = {
          keeperId: k,
          params: m.params,
          log: new BoundedLines(TURN_LOG_BYTES),
          result: null,
          handedTo: null,
        };
      return JSON.stringify({ ...m, id: k });
    }
    if (hasId(m)) {
      this.agentRequests.delete(JSON.stringify(m.id));
      return line;
    }
    if (m.method === "$/cancel_request") {
      const params = (m.params ?? {}) as JsonObject;
      for (const [k, p] of this.pending) {
        if (p.gen === gen && JSON.stringify(p.relayId) === JSON.stringify(params.requestId)) {
          return JSON.stringify({ ...m, params: { ...params, requestId: k } });
        }
      }
    }
    return line;
  }

  /** A line from the agent; `to` is the attached connection, if any. */
  fromAgent(line: string, to: Outlet | null): void {
    const m = parse(line);
    if (m && typeof m.method !== "string" && hasId(m)) {
      this.answer(m, to);
      return;
    }
    if (m && typeof m.method === "string" && hasId(m)) {
      this.agentRequests.set(JSON.stringify(m.id), { line, delivered: !!to });
      to?.send({ t: "out", id: this.id, line });
      return;
    }
    if (m && typeof m.method === "string") {
      const params = (m.params ?? {}) as JsonObject;
      if (m.method === "$/cancel_request") this.agentRequests.delete(JSON.stringify(params.requestId));
      this.onNotice?.(m.method, params);
    }
    const taskOutput = m?.method === TASK_OUTPUT;
    if (to) to.send({ t: "out", id: this.id, line });
    // Task output the relay already has is in the task's log; a replay needs only the rest.
    if (this.turn && !this.turn.result) {
      if (!(to && taskOutput)) this.turn.log.push({ line, delivered: !!to, taskOutput });
    } else if (!to) {
      this.buffer.push({ line, delivered: false, taskOutput });
    }
  }

  private answer(m: JsonObject, to: Outlet | null): void {
    const k = typeof m.id === "number" ? m.id : NaN;
    const p = this.pending.get(k);
    if (!p) return; // not an answer to anything asked through the keeper
    this.pending.delete(k);
    const isTurn = this.turn?.keeperId === k;
    if (to && to.gen === p.gen) {
      if (isTurn)
        this.turn = {
          ...this.turn!,
          result: "error" in m ? { error: m.error } : { result: m.result },
          handedTo: to.gen,
        };
      to.send({ t: "out", id: this.id, line: JSON.stringify({ ...m, id: p.relayId }) });
      return;
    }
    if (!isTurn) return; // its asker is gone and nobody else wants it
    this.turn!.result = "error" in m ? { error: m.error } : { result: m.result };
    if (to) this.handOverResult(to);
  }

  private handOverResult(to: Outlet): void {
    const t = this.turn;
    if (!t?.result) return;
    t.handedTo = to.gen;
    to.send({ t: "promptResult", id: this.id, response: t.result });
  }

  /** The relay's state says no turn of its is outstanding on this worker (the turn's end is
   * in its store): a delivered answer need not be kept for another relay any more. */
  ack(): void {
    if (this.turn?.result && this.turn.handedTo !== null) this.turn = null;
  }

  /** A connection takes this worker: the running turn's log (all of it, marked), the kept
   * answer, lines buffered meanwhile, then the agent's unanswered requests once more. */
  attach(to: Outlet): void {
    const t = this.turn;
    if (t && t.handedTo !== to.gen && this.pending.get(t.keeperId)?.gen !== to.gen) {
      for (const x of t.log.items) {
        to.send({ t: "out", id: this.id, line: x.line, replay: true, delivered: x.delivered });
        x.delivered = true;
      }
      this.handOverResult(to);
    }
    for (const x of this.buffer.take()) to.send({ t: "out", id: this.id, line: x.line });
    for (const r of this.agentRequests.values()) {
      to.send({ t: "out", id: this.id, line: r.line });
      r.delivered = true;
    }
  }
}
