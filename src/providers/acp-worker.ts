import { spawn, type ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
// The unstable schema keeps `usage` in the prompt response (the stable one drops it).
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { ProviderAdapter } from "./adapters/types.ts";
import { configCalls, currentModel, readAdvertisement, type Advertisement, type Desired } from "./session-config.ts";

// One worker = one agent process spoken to over ACP (the relay is the client), hosting
// one relay session. The relay hands it the MCP entry for relay_tool in `session/new`, and
// applies the session's model, effort and mode with the calls the agent advertised there.

export interface LaunchSpec {
  command: string;
  args: string[];
  /** The worker's whole environment (launch.ts builds it); left out: the relay's own. */
  env?: Record<string, string>;
}

export interface McpEntry {
  name: string;
  url: string;
  headers: Record<string, string>;
}

export interface TaskNotice {
  taskId: string;
  type: string;
  description: string;
  status: "running" | "completed" | "failed";
  exitCode?: number | null;
  /** The task's process group (its own, started detached), so the relay can end it. */
  pgid?: number;
}

export type PermissionRequest = acp.RequestPermissionRequest;
export type PermissionOutcome = acp.RequestPermissionResponse["outcome"];

/** What the relay does with what the agent reports. */
export interface WorkerHost {
  onChunk(text: string): void;
  /** Every other session/update (tool calls, plans, thoughts, usage). */
  onUpdate?(update: Record<string, unknown>): void;
  onTask(t: TaskNotice): void;
  onTaskOutput(taskId: string, chunk: string): void;
  askUser(q: { question: string; options: string[] }, signal: AbortSignal): Promise<{ choice?: string; answer?: string }>;
  /** The agent asks before a tool (session/request_permission): the relay's mode decides. */
  permission?(req: PermissionRequest, signal: AbortSignal): Promise<PermissionOutcome>;
  onExit(): void;
}

const obj = (p: unknown): Record<string, unknown> => (p && typeof p === "object" ? (p as Record<string, unknown>) : {});
const str = (v: unknown): string => (typeof v === "string" ? v : "");

export class AcpWorker {
  private child: ChildProcess;
  private conn: acp.ClientConnection;
  private acpSessionId = "";
  private stderrTail = "";
  private seen = new Set<string>();
  private seenWaiters = new Map<string, (() => void)[]>();
  readonly exited: Promise<void>;
  alive = true;
  /** What session/new advertised (models, modes, config options). */
  advertised: Advertisement = { modes: null, models: null, configOptions: [] };
  /** The model, effort and mode last applied to the agent. */
  applied: Partial<Desired> = {};
  /** The agent's sign-in notification said nobody is signed in (adapter-specific). */
  signedOut: boolean | undefined;
  private promptedOnce = false;
  /** Set when the agent runs another model than the session's (it did not list that one). */
  runningModel: string | null = null;

  constructor(
    spec: LaunchSpec,
    private cwd: string,
    private host: WorkerHost,
    private adapter?: ProviderAdapter,
  ) {
    this.child = spawn(spec.command, spec.args, {
      cwd,
      env: spec.env ?? process.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stderr!.on("data", (d: Buffer) => {
      this.stderrTail = (this.stderrTail + d.toString()).slice(-2000);
    });
    this.exited = new Promise((resolve) => {
      const gone = () => {
        if (!this.alive) return;
        this.alive = false;
        resolve();
        this.host.onExit();
      };
      this.child.once("exit", gone);
      this.child.once("error", (err) => {
        this.stderrTail += `\n${err.message}`;
        gone();
      });
    });
    const stream = acp.ndJsonStream(
      Writable.toWeb(this.child.stdin!) as unknown as WritableStream<Uint8Array>,
      Readable.toWeb(this.child.stdout!) as unknown as ReadableStream<Uint8Array>,
    );
    const app = acp
      .client({ name: "oar" })
      .onNotification("session/update", ({ params }) => {
        const u = params.update as unknown as Record<string, unknown>;
        const content = obj(u.content);
        if (u.sessionUpdate === "agent_message_chunk" && content.type === "text") return this.host.onChunk(str(content.text));
        if (u.sessionUpdate === "config_option_update" && Array.isArray(u.configOptions)) {
          this.advertised = { ...this.advertised, configOptions: readAdvertisement({ configOptions: u.configOptions }).configOptions };
        }
        this.host.onUpdate?.(u);
      })
      .onNotification("_oar/task", (p) => obj(p), ({ params }) => {
        const status = str(params.status);
        if (status !== "running" && status !== "completed" && status !== "failed") return;
        this.host.onTask({
          taskId: str(params.taskId),
          type: str(params.type) || "local_bash",
          description: str(params.description),
          status,
          exitCode: typeof params.exitCode === "number" ? params.exitCode : null,
          ...(typeof params.pgid === "number" && Number.isInteger(params.pgid) && params.pgid > 1 ? { pgid: params.pgid } : {}),
        });
      })
      .onNotification("_oar/task_output", (p) => obj(p), ({ params }) => {
        this.host.onTaskOutput(str(params.taskId), str(params.chunk));
      })
      // Extension notifications (Claude's `_auth/status_update`, Grok's `_x.ai/mcp_initialized`, …).
      .onNotification("*", ({ method, params }) => this.noticed(method, obj(params)))
      .onRequest("_oar/ask_user", (p) => obj(p), async ({ params, signal }) => {
        const options = Array.isArray(params.options) ? params.options.map(String) : [];
        return this.host.askUser({ question: str(params.question), options }, signal);
      })
      .onRequest("session/request_permission", async ({ params, signal }) => {
        // No host rule (a probe): nothing is allowed.
        const outcome: PermissionOutcome = this.host.permission ? await this.host.permission(params, signal) : { outcome: "cancelled" };
        return { outcome };
      });
    this.conn = app.connect(stream);
  }

  private noticed(method: string, params: Record<string, unknown>): void {
    this.seen.add(method);
    for (const w of this.seenWaiters.get(method) ?? []) w();
    this.seenWaiters.delete(method);
    const out = this.adapter?.signedOut?.(method, params);
    if (out !== undefined) this.signedOut = out;
  }

  /** Resolves when the agent has sent `method` (at once if it did already), or after `ms`. */
  waitForNotice(method: string, ms: number): Promise<boolean> {
    if (this.seen.has(method)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(false), ms);
      t.unref();
      const list = this.seenWaiters.get(method) ?? [];
      list.push(() => {
        clearTimeout(t);
        resolve(true);
      });
      this.seenWaiters.set(method, list);
    });
  }

  get stderr(): string {
    return this.stderrTail;
  }

  /** The ACP connection ended (the process is gone or going). */
  get disconnected(): boolean {
    return this.conn.signal.aborted;
  }

  get sessionId(): string {
    return this.acpSessionId;
  }

  async start(mcp: McpEntry | null, meta: Record<string, unknown>): Promise<void> {
    await this.conn.agent.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    const res: acp.NewSessionResponse = await this.conn.agent.request("session/new", {
      cwd: this.cwd,
      mcpServers: mcp
        ? [{ type: "http", name: mcp.name, url: mcp.url, headers: Object.entries(mcp.headers).map(([name, value]) => ({ name, value })) }]
        : [],
      _meta: { oar: meta },
    });
    this.acpSessionId = res.sessionId;
    this.advertised = readAdvertisement(res);
    this.mcpGiven = mcp !== null;
  }
  private mcpGiven = false;

  /** Brings the agent's model, effort and mode to `want` with the calls it advertised;
   * returns what was applied (for the record). A refused call throws. */
  async configure(want: Desired): Promise<string[]> {
    const done: string[] = [];
    const calls = configCalls(this.advertised, this.adapter, want, this.applied);
    if (want.model !== this.applied.model) {
      // The agent did not list the asked model: it keeps its own, and the reply says which.
      this.runningModel = calls.some((c) => c.what.startsWith("model ")) ? null : currentModel(this.advertised, this.adapter);
    }
    for (const call of calls) {
      const { method, what, ...rest } = call;
      const res = await this.conn.agent.request<unknown>(method, { sessionId: this.acpSessionId, ...rest });
      const cfg = obj(res).configOptions;
      if (Array.isArray(cfg)) this.advertised = { ...this.advertised, configOptions: readAdvertisement({ configOptions: cfg }).configOptions };
      done.push(what);
    }
    this.applied = { ...want };
    return done;
  }

  /** The adapter's wait before the first prompt (Grok: its MCP connection); bounded. */
  async beforePrompt(): Promise<void> {
    if (this.promptedOnce) return;
    this.promptedOnce = true;
    const w = this.adapter?.waitsForBeforeFirstPrompt;
    if (w && this.mcpGiven) await this.waitForNotice(w.method, w.timeoutMs);
  }

  prompt(text: string, meta: Record<string, unknown>): Promise<acp.PromptResponse> {
    return this.conn.agent.request("session/prompt", {
      sessionId: this.acpSessionId,
      prompt: [{ type: "text", text }],
      _meta: { oar: meta },
    });
  }

  cancel(): void {
    if (!this.alive) return;
    this.conn.agent.notify("session/cancel", { sessionId: this.acpSessionId }).catch(() => {});
  }

  kill(): void {
    if (!this.alive) return;
    this.conn.close();
    this.child.kill("SIGKILL");
  }

  /** Ends the worker politely: closing stdin lets the agent exit on its own. */
  stop(): void {
    if (!this.alive) return;
    this.conn.close();
    this.child.stdin?.end();
    setTimeout(() => this.child.kill("SIGKILL"), 2000).unref();
  }
}
