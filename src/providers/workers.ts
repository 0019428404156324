import type { Clock, Cancel } from "../core/clock.ts";
import { MINUTE } from "../core/clock.ts";
import type { SessionRow, TurnRow } from "../sessions/types.ts";
import { AcpWorker, type McpEntry, type WorkerHost } from "./acp-worker.ts";
import { launchSpec } from "./launch.ts";

export interface WorkerEnv {
  clock: Clock;
  session(id: string): SessionRow | undefined;
  /** The MCP entry when relay_tool is offered to this session's agent, else null. */
  mcpEntry(session: SessionRow): McpEntry | null;
  hostFor(sessionId: string, current: () => ((t: string) => void) | null): Omit<WorkerHost, "onChunk" | "onExit">;
  /** Whether the session still needs its process (a turn queued or running, a task running). */
  busy(sessionId: string): boolean;
  /** The worker's process ended. `expected`: the relay stopped or killed it (idle, Kill
   * session, archive); otherwise it died on its own. */
  onWorkerExit(sessionId: string, expected: boolean): void;
  idleMinutes: number;
  /** The owner's settings (keys, endpoints) a provider's launch reads. */
  settings?(): Record<string, unknown>;
}

interface Slot {
  worker: AcpWorker;
  ready: Promise<void>;
  onChunk: ((t: string) => void) | null;
  idle?: Cancel;
}

/** Agent processes, started when a session needs one and stopped after being idle, so
 * thousands of idle sessions cost no processes. */
export class Workers {
  private slots = new Map<string, Slot>();

  constructor(private env: WorkerEnv) {}

  get count(): number {
    return this.slots.size;
  }

  has(sessionId: string): boolean {
    return this.slots.has(sessionId);
  }

  private ensure(session: SessionRow): Slot {
    const existing = this.slots.get(session.id);
    if (existing?.worker.alive) return existing;
    const spec = launchSpec(session.provider, this.env.settings?.() ?? {});
    if (!spec) throw new Error(`Provider ${session.provider} cannot be started on this relay.`);
    const slot = {} as Slot;
    slot.onChunk = null;
    const hostExtras = this.env.hostFor(session.id, () => slot.onChunk);
    slot.worker = new AcpWorker(spec, session.cwd, {
      ...hostExtras,
      onChunk: (t) => slot.onChunk?.(t),
      onExit: () => {
        // stop() and kill() take the slot out first: still here means the process died by itself.
        const unexpected = this.slots.get(session.id) === slot;
        if (unexpected) this.slots.delete(session.id);
        slot.idle?.();
        this.env.onWorkerExit(session.id, !unexpected);
      },
    });
    slot.ready = slot.worker.start(this.env.mcpEntry(session), { sessionId: session.id, model: session.model, effort: session.effort, mode: session.mode });
    slot.ready.catch(() => slot.worker.kill());
    this.slots.set(session.id, slot);
    return slot;
  }

  async run(session: SessionRow, turn: TurnRow, text: string, onChunk: (t: string) => void, signal: AbortSignal): Promise<{ stopReason: string }> {
    const slot = this.ensure(session);
    slot.idle?.();
    slot.idle = undefined;
    const exitError = () => new Error(`The agent process exited during the turn.${slot.worker.stderr ? ` Its last output: ${slot.worker.stderr.trim().slice(-300)}` : ""}`);
    const exited = slot.worker.exited.then(() => {
      throw exitError();
    });
    await Promise.race([slot.ready, exited]);
    if (signal.aborted) return { stopReason: "cancelled" };
    slot.onChunk = onChunk;
    const onAbort = () => slot.worker.cancel();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const res = await Promise.race([
        slot.worker.prompt(text, { model: turn.model ?? session.model, effort: session.effort, mode: turn.mode ?? session.mode }),
        exited,
      ]);
      return { stopReason: res.stopReason };
    } catch (err) {
      // A dying agent closes the pipe a moment before its exit is seen: say what happened
      // instead of the transport's "connection closed".
      if (slot.worker.disconnected) {
        await Promise.race([slot.worker.exited, new Promise((r) => setTimeout(r, 2000).unref())]);
        if (!slot.worker.alive) throw exitError();
      }
      throw err;
    } finally {
      signal.removeEventListener("abort", onAbort);
      // Only our own: a turn given up on (see Turns.end) must not cut off the next one's chunks.
      if (slot.onChunk === onChunk) slot.onChunk = null;
      this.armIdle(session.id);
    }
  }

  /** Stops the worker once the session has been idle a while (checked again when due). */
  armIdle(sessionId: string): void {
    const slot = this.slots.get(sessionId);
    if (!slot) return;
    slot.idle?.();
    slot.idle = this.env.clock.at(this.env.clock.now() + this.env.idleMinutes * MINUTE, () => {
      slot.idle = undefined;
      if (this.env.busy(sessionId)) return this.armIdle(sessionId);
      this.stop(sessionId);
    });
  }

  stop(sessionId: string): void {
    const slot = this.slots.get(sessionId);
    if (!slot) return;
    this.slots.delete(sessionId);
    slot.idle?.();
    slot.worker.stop();
  }

  kill(sessionId: string): boolean {
    const slot = this.slots.get(sessionId);
    if (!slot) return false;
    this.slots.delete(sessionId);
    slot.idle?.();
    slot.worker.kill();
    return true;
  }

  stopAll(): void {
    for (const id of [...this.slots.keys()]) this.kill(id);
  }
}
