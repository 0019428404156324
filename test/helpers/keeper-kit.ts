// Drives the real keeper process through its real client (src/providers/keeper/client.ts)
// with real agents: a tiny JSON-RPC speaker over an AgentPipe (ids chosen by the test, so
// a "new relay" can start at 0 again like a new ACP connection does), and helpers to find
// and wait for processes.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ownProgram } from "../../src/core/package-paths.ts";
import { KeeperClient, type AgentPipe } from "../../src/providers/keeper/client.ts";
import { pidFile } from "../../src/providers/keeper/protocol.ts";

export const SCRIPTED = "src/providers/scripted/agent.ts";
export const FAKE_ACP = "test/helpers/fake-acp-agent.ts";

export function agentSpec(src = SCRIPTED, env: Record<string, string> = {}) {
  return { ...ownProgram(src), env: { ...(process.env as Record<string, string>), ...env }, cwd: process.cwd() };
}

/** The process exists and is not a zombie (ended, waiting for its parent to reap it). */
export function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

export async function until<T>(what: string, fn: () => T | undefined | null | false, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function keeperPidOf(dataDir: string): number | null {
  try {
    return Number(readFileSync(pidFile(dataDir), "utf8").trim()) || null;
  } catch {
    return null;
  }
}

/** A data folder whose keeper (and agents) are ended and waited for by `close()`. */
export class KeeperDir {
  readonly dir = mkdtempSync(join(tmpdir(), "oar-keeper-"));
  private pids = new Set<number>();

  connect(opts: { start?: boolean; orphanMs?: number } = {}): Promise<KeeperClient | null> {
    return KeeperClient.connect(this.dir, { start: opts.start ?? true, orphanMs: opts.orphanMs ?? 60_000 }).then(
      (c) => {
        if (c) this.pids.add(c.keeperPid);
        return c;
      },
    );
  }

  /** Remember an agent pid so close() checks it is gone. */
  track(pid: number): void {
    this.pids.add(pid);
  }

  async close(): Promise<void> {
    const k = keeperPidOf(this.dir);
    if (k) this.pids.add(k);
    for (const p of this.pids)
      if (alive(p))
        try {
          process.kill(p, "SIGTERM");
        } catch {}
    await until("keeper and agents gone", () => [...this.pids].every((p) => !alive(p)), 30_000).catch(() => {
      for (const p of this.pids)
        try {
          process.kill(p, "SIGKILL");
        } catch {}
    });
    rmSync(this.dir, { recursive: true, force: true });
  }
}

type Msg = { id?: unknown; method?: string; params?: any; result?: any; error?: any };

/** JSON-RPC over an AgentPipe, as the relay's ACP connection would speak it. */
export class Rpc {
  private nextId: number;
  private waiting = new Map<unknown, { resolve: (m: Msg) => void }>();
  readonly seen: { msg: Msg; replay: boolean; delivered: boolean }[] = [];
  readonly requests: Msg[] = [];
  results: { result?: unknown; error?: unknown }[] = [];

  constructor(
    readonly pipe: AgentPipe,
    opts: { firstId?: number; onRequest?: (m: Msg) => unknown } = {},
  ) {
    this.nextId = opts.firstId ?? 0;
    pipe.onLine((line, info) => {
      const msg = JSON.parse(line) as Msg;
      this.seen.push({ msg, ...info });
      if (msg.method && msg.id !== undefined) {
        this.requests.push(msg);
        const answer = opts.onRequest?.(msg);
        if (answer !== undefined) this.respond(msg.id, answer);
        return;
      }
      if (!msg.method && msg.id !== undefined) this.waiting.get(msg.id)?.resolve(msg);
    });
    pipe.onPromptResult((r) => this.results.push(r));
  }

  request(method: string, params: unknown): Promise<Msg> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, { resolve });
      this.pipe.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  respond(id: unknown, result: unknown): void {
    this.pipe.write(JSON.stringify({ jsonrpc: "2.0", id, result }));
  }

  /** The reply text from agent_message_chunk updates seen (optionally only replayed ones). */
  text(filter: (s: { replay: boolean; delivered: boolean }) => boolean = () => true): string {
    return this.seen
      .filter(
        (s) =>
          filter(s) &&
          s.msg.method === "session/update" &&
          s.msg.params?.update?.sessionUpdate === "agent_message_chunk",
      )
      .map((s) => s.msg.params.update.content.text)
      .join("");
  }

  async openSession(cwd = process.cwd()): Promise<string> {
    const init = await this.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    if (init.error) throw new Error(JSON.stringify(init.error));
    const s = await this.request("session/new", { cwd, mcpServers: [] });
    if (s.error) throw new Error(JSON.stringify(s.error));
    return s.result.sessionId as string;
  }

  prompt(sessionId: string, text: string): Promise<Msg> {
    return this.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  }
}
