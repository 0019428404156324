import type { AgentPipe, PipeSpec } from "./agent-pipe.ts";
import { spawnDirect } from "./direct-pipe.ts";
import { KeeperClient, type KeptWorker } from "./keeper/client.ts";

/** A worker the keeper held when this relay started. */
export type { KeptWorker };

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

/** The relay's orphan bound for the keeper (ms), from OAR_KEEPER_ORPHAN_MS (tests). */
function orphanMs(): number | undefined {
  const n = Number(process.env.OAR_KEEPER_ORPHAN_MS);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** Agents held by the data folder's keeper (providers/keeper/), so they outlive a relay
 * restart. The keeper is started on the first agent the relay needs (not at relay start:
 * start time and idle memory). When it cannot start, agents are the relay's own children
 * and the log says why. */
export class KeeperPipes implements WorkerPipes {
  private client: KeeperClient | null = null;
  private connecting: Promise<KeeperClient | null> | null = null;
  private direct = new DirectPipes();

  constructor(
    private dataDir: string,
    private log: (line: string) => void = (l) => console.error(l),
  ) {}

  private keeper(): Promise<KeeperClient | null> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= KeeperClient.connect(this.dataDir, { start: true, orphanMs: orphanMs() }).then(
      (c) => this.use(c),
      (err: unknown) => {
        this.log(
          `oar: the keeper could not be started (${(err as Error)?.message ?? err}); agents run as the relay's own processes and end with it.`,
        );
        return null;
      },
    );
    return this.connecting;
  }

  private use(c: KeeperClient | null): KeeperClient | null {
    this.connecting = null;
    this.client = c;
    // A keeper that went away (crashed) takes its agents along; the next one is started anew.
    void c?.closed.then(() => {
      if (this.client === c) this.client = null;
    });
    return c;
  }

  async spawn(id: string, spec: PipeSpec): Promise<AgentPipe> {
    const c = await this.keeper();
    return c ? c.spawn(id, spec) : this.direct.spawn(id, spec);
  }

  async reattach(): Promise<{ kept: KeptWorker[]; attach(id: string): AgentPipe } | null> {
    let c: KeeperClient | null;
    try {
      c = await KeeperClient.connect(this.dataDir, { start: false, orphanMs: orphanMs() });
    } catch (err) {
      this.log(
        `oar: the keeper from before did not answer (${(err as Error)?.message ?? err}); its workers are not taken back.`,
      );
      return null;
    }
    if (!c) return null;
    this.use(c);
    return { kept: c.kept(), attach: (id) => c.attach(id) };
  }

  detach(): void {
    this.client?.detach();
    this.direct.detach();
  }
}
