import type { AgentPipe, PipeSpec } from "./agent-pipe.ts";
import { spawnDirect } from "./direct-pipe.ts";

/** A worker the keeper held when this relay started (the keeper client's KeptWorker). */
export interface KeptWorker {
  id: string;
  pid: number;
  alive: boolean;
  state: Record<string, unknown> | null;
  resumable: { promptParams: unknown } | null;
}

/** Where agent processes come from: the keeper (they outlive a relay restart) or, when it
 * cannot start, the relay's own children. */
export interface WorkerPipes {
  spawn(id: string, spec: PipeSpec): Promise<AgentPipe>;
  /** The workers kept from before this relay started, and how to take one back; null when
   * nothing was kept (no keeper runs). */
  reattach(): Promise<{ kept: KeptWorker[]; attach(id: string): AgentPipe } | null>;
  /** The relay is going away but its workers stay (graceful stop): let go of them. Workers
   * that cannot outlive the relay (direct children) end here. */
  detach(): void;
}

/** Agents as the relay's own children: they end with it. */
export class DirectPipes implements WorkerPipes {
  private live = new Set<AgentPipe>();

  async spawn(id: string, spec: PipeSpec): Promise<AgentPipe> {
    const pipe = spawnDirect(id, spec);
    this.live.add(pipe);
    void pipe.exited.then(() => this.live.delete(pipe));
    return pipe;
  }

  async reattach(): Promise<null> {
    return null;
  }

  detach(): void {
    for (const p of this.live) p.kill();
  }
}
