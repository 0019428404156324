import type { AgentPipe } from "./agent-pipe.ts";
// The unstable schema keeps `usage` in the prompt response (the stable one drops it).
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { ProviderAdapter } from "./adapters/types.ts";
import { readCapabilities, type Capabilities } from "./capabilities.ts";
import { configCalls, currentModel, readAdvertisement, type Advertisement, type Desired } from "./session-config.ts";
import type { AgentStart } from "./agent-start.ts";

// One worker = one agent process spoken to over ACP (the relay is the client), hosting
// one relay session. The relay hands it the MCP entry for relay_tool in `session/new`, and
// applies the session's model, effort and mode with the calls the agent advertised there.

export interface LaunchSpec {
  command: string;
  args: string[];
  /** The worker's whole environment (launch.ts builds it); left out: the relay's own. */
  env?: Record<string, string>;
}

/** The name of relay_tool's MCP server in every agent's session/new (app/wire-providers.ts mcpEntry). */
export const RELAY_MCP_NAME = "relay";

/** How long an agent holds relay_tool before the relay counts its MCP start as done (adapter
 * `mcpRetry`): one past its own deadline drops a late answer within moments. */
const MCP_KEPT_MS = 3_000;
/** How often (adapter `mcpRetry`) the agent is asked to connect relay_tool again. */
const MCP_RETRIES = 3;

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
  askUser(
    q: { question: string; options: string[] },
    signal: AbortSignal,
  ): Promise<{ choice?: string; answer?: string }>;
  /** How often the agent listed relay_tool on /mcp, and a wait for its next listing (true) or `ms` passing (false). */
  toolListings?: { heldFor(): number; counts(): { listings: number; ends: number }; next(ms: number): Promise<void> };
  /** The agent asks before a tool (session/request_permission): the relay's mode decides. */
  permission?(req: PermissionRequest, signal: AbortSignal): Promise<PermissionOutcome>;
  /** The agent's file reads and writes through the client (ACP `fs/*`): offered in
   * `initialize` when set. A write refused throws; its message is the agent's answer. */
  files?: {
    read(path: string, line?: number | null, limit?: number | null): string;
    write(path: string, content: string): void;
  };
  onExit(): void;
}

const obj = (p: unknown): Record<string, unknown> => (p && typeof p === "object" ? (p as Record<string, unknown>) : {});
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** What the relay keeps with the agent process (the keeper's `setState`), so a relay that
 * starts again can take the worker back without initialize/session/new. */
export interface WorkerState {
  v: 1;
  acpSessionId: string;
  advertised: Advertisement;
  applied: Partial<Desired>;
  promptedOnce: boolean;
  mcpGiven: boolean;
  /** The relay_tool address the agent was given at session/new (fixed for its life). */
  mcpUrl: string | null;
  costSoFar: number | null;
  /** The relay turn whose session/prompt is outstanding, else null. */
  turnId: string | null;
  runningModel: string | null;
}

/** The stored state, or null when it is not one this relay wrote (another version). */
export function readWorkerState(s: Record<string, unknown> | null | undefined): WorkerState | null {
  if (s?.v !== 1 || typeof s.acpSessionId !== "string" || !s.acpSessionId) return null;
  return s as unknown as WorkerState;
}

export class AcpWorker {
  private pipe: AgentPipe | null = null;
  private pipeReady: Promise<AgentPipe | null>;
  private conn: acp.ClientConnection;
  private acpSessionId = "";
  private spawnError = "";
  private seen = new Set<string>();
  private seenWaiters = new Map<string, (() => void)[]>();
  private resultWaiters: ((r: { result?: unknown; error?: unknown }) => void)[] = [];
  readonly exited: Promise<void>;
  alive = true;
  /** What session/new advertised (models, modes, config options). */
  advertised: Advertisement = { modes: null, models: null, configOptions: [] };
  /** The model, effort and mode last applied to the agent. */
  applied: Partial<Desired> = {};
  /** What its `initialize` advertised (null until it answered). */
  capabilities: Capabilities | null = null;
  /** How many sign-in methods it advertised. */
  authMethods = 0;
  /** The agent's sign-in notification said nobody is signed in (adapter-specific). */
  signedOut: boolean | undefined;
  private promptedOnce = false;
  /** Set when the agent runs another model than the session's (it did not list that one). */
  runningModel: string | null = null;
  /** The agent's cumulative session cost (usage_update), to take each turn's share. */
  costSoFar: number | null = null;
  /** The relay turn whose prompt is outstanding (kept with the process for a restart). */
  turnId: string | null = null;
  mcpUrl: string | null = null;
  /** Set when this relay resumes the worker's running turn (Workers.attachAll): only then
   * are the keeper's replayed lines taken. */
  takesReplay = false;
  /** A worker taken back after a relay restart whose agent is asked to reconnect relay_tool
   * before its next prompt (the adapter's `reconnectMcp`). */
  private reconnectDue = false;
  /** The relay's own step runs (that reconnect): what the agent says goes to no conversation,
   * only (its text) to the relay's log. */
  private systemStep: { said: string } | null = null;

  /** `kept`: a worker taken back after a relay restart (its ACP session is open already). */
  constructor(
    pipe: AgentPipe | Promise<AgentPipe>,
    private cwd: string,
    private host: WorkerHost,
    private adapter?: ProviderAdapter,
    kept?: WorkerState,
  ) {
    this.pipeReady = Promise.resolve(pipe).then(
      (p) => (this.pipe = p),
      (err: unknown) => {
        this.spawnError = (err as Error)?.message ?? String(err);
        return null;
      },
    );
    if (kept) {
      this.acpSessionId = kept.acpSessionId;
      this.advertised = kept.advertised;
      this.applied = kept.applied ?? {};
      this.promptedOnce = kept.promptedOnce;
      this.mcpGiven = kept.mcpGiven;
      this.mcpUrl = kept.mcpUrl;
      this.costSoFar = kept.costSoFar;
      this.turnId = kept.turnId;
      this.runningModel = kept.runningModel;
      this.reconnectDue = kept.mcpGiven && !!adapter?.reconnectMcp;
      this.keptWorker = true;
    }
    this.exited = new Promise((resolve) => {
      const gone = () => {
        if (!this.alive) return;
        this.alive = false;
        resolve();
        this.host.onExit();
      };
      // After the lines and a kept prompt answer that came before the exit were handled.
      const later = () => new Promise<void>((r) => setImmediate(() => setImmediate(r)));
      void this.pipeReady.then((p) => (p ? p.exited.then(later, later).then(gone) : gone()));
    });
    // The ACP connection reads and writes message objects: each line is parsed once here and
    // each message stringified once there (no ndjson bytes encoded and decoded in between).
    let closed = false;
    const readable = new ReadableStream<acp.AnyMessage>({
      start: (ctrl) => {
        const push = (line: string) => {
          if (closed || !line.trim()) return;
          const m = readMessage(line);
          if ("message" in m) ctrl.enqueue(m.message);
          // As the SDK's ndjson reader answers a line that is no message.
          else
            void this.pipeReady.then((p) =>
              p?.write(JSON.stringify({ jsonrpc: "2.0", id: null, error: m.error.toErrorResponse() })),
            );
        };
        const close = () => {
          if (closed) return;
          closed = true;
          ctrl.close();
        };
        void this.pipeReady.then((p) => {
          if (!p) return close();
          p.onLine((line, info) => {
            // A replay belongs to the turn this relay resumes; a kept turn it does not resume
            // (already recorded, or ended) must not leak into the next turn's reply.
            if (info.replay && (!this.takesReplay || !replayed(line, info.delivered))) return;
            push(line);
          });
          // On the next macrotask: the lines before it have been dispatched by then (reading
          // queued lines and their handlers run on microtasks).
          p.onPromptResult((response) => setImmediate(() => this.takesReplay && this.earlierAnswered(response)));
          void p.exited.then(close);
        });
      },
      // The connection was closed from our side (kill, stop): nothing more is read.
      cancel: () => {
        closed = true;
      },
    });
    const writable = new WritableStream<acp.AnyMessage>({
      // One write at a time, in order (the stream's own rule).
      write: async (message) => {
        const p = this.pipe ?? (await this.pipeReady);
        p?.write(JSON.stringify(message));
      },
    });
    const stream: acp.Stream = { readable, writable };
    const app = acp
      .client({ name: "oar" })
      .onNotification("session/update", ({ params }) => {
        const u = params.update as unknown as Record<string, unknown>;
        const content = obj(u.content);
        if (u.sessionUpdate === "config_option_update" && Array.isArray(u.configOptions)) {
          this.advertised = {
            ...this.advertised,
            configOptions: readAdvertisement({ configOptions: u.configOptions }).configOptions,
          };
        }
        if (this.replaying) return;
        const chunk = u.sessionUpdate === "agent_message_chunk" && content.type === "text" ? str(content.text) : null;
        if (this.systemStep) {
          if (chunk) this.systemStep.said = (this.systemStep.said + chunk).slice(0, 2000);
          return;
        }
        if (chunk !== null) {
          this.host.onChunk(chunk);
          // Qwen reports each model call's usage in a chunk's `_meta` (reported-usage.ts).
          if (!u._meta) return;
        }
        this.host.onUpdate?.(u);
      })
      .onNotification(
        "_oar/task",
        (p) => obj(p),
        ({ params }) => {
          const status = str(params.status);
          if (status !== "running" && status !== "completed" && status !== "failed") return;
          this.host.onTask({
            taskId: str(params.taskId),
            type: str(params.type) || "local_bash",
            description: str(params.description),
            status,
            exitCode: typeof params.exitCode === "number" ? params.exitCode : null,
            ...(typeof params.pgid === "number" && Number.isInteger(params.pgid) && params.pgid > 1
              ? { pgid: params.pgid }
              : {}),
          });
        },
      )
      .onNotification(
        "_oar/task_output",
        (p) => obj(p),
        ({ params }) => {
          this.host.onTaskOutput(str(params.taskId), str(params.chunk));
        },
      )
      // Extension notifications (Claude's `_auth/status_update`, Grok's `_x.ai/mcp_initialized`, …).
      .onNotification("*", ({ method, params }) => this.noticed(method, obj(params)))
      .onRequest(
        "_oar/ask_user",
        (p) => obj(p),
        async ({ params, signal }) => {
          const options = Array.isArray(params.options) ? params.options.map(String) : [];
          return this.host.askUser({ question: str(params.question), options }, signal);
        },
      )
      .onRequest("session/request_permission", async ({ params, signal }) => {
        // No host rule (a probe), or the relay's own step: nothing is allowed.
        const outcome: PermissionOutcome =
          this.host.permission && !this.systemStep
            ? await this.host.permission(params, signal)
            : { outcome: "cancelled" };
        return { outcome };
      })
      .onRequest("fs/read_text_file", async ({ params }) => ({
        content: this.fileCall(() => this.host.files!.read(params.path, params.line, params.limit)),
      }))
      .onRequest("fs/write_text_file", async ({ params }) => {
        this.fileCall(() => this.host.files!.write(params.path, params.content));
        return {};
      });
    this.conn = app.connect(stream);
  }

  /** A file call of the agent; a refusal goes back as an ACP error in the relay's words. */
  private fileCall<T>(run: () => T): T {
    if (!this.host.files || this.systemStep)
      throw new acp.RequestError(-32601, "The client offers no file system to this agent.");
    try {
      return run();
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      throw new acp.RequestError(-32000, (e as Error).message, typeof code === "string" ? { code } : undefined);
    }
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
    return (this.pipe?.stderrTail() ?? "") + (this.spawnError ? `\n${this.spawnError}` : "");
  }

  /** The agent process id (0 until it is spawned). */
  get pid(): number {
    return this.pipe?.pid ?? 0;
  }

  /** Stores what a relay that starts again needs to take this worker back. */
  saveState(): void {
    if (!this.acpSessionId) return;
    const state: WorkerState = {
      v: 1,
      acpSessionId: this.acpSessionId,
      advertised: this.advertised,
      applied: this.applied,
      promptedOnce: this.promptedOnce,
      mcpGiven: this.mcpGiven,
      mcpUrl: this.mcpUrl,
      costSoFar: this.costSoFar,
      turnId: this.turnId,
      runningModel: this.runningModel,
    };
    void this.pipeReady.then((p) => p?.setState(state as unknown as Record<string, unknown>));
  }

  /** Resolves with the answer to a prompt an earlier relay sent (the keeper kept it). */
  earlierPromptResult(): Promise<{ result?: unknown; error?: unknown }> {
    if (this.earlierAnswer) return Promise.resolve(this.earlierAnswer);
    return new Promise((resolve) => this.resultWaiters.push(resolve));
  }
  private earlierAnswer: { result?: unknown; error?: unknown } | null = null;

  private earlierAnswered(response: { result?: unknown; error?: unknown }): void {
    this.earlierAnswer = response;
    for (const w of this.resultWaiters.splice(0)) w(response);
  }

  /** The ACP connection ended (the process is gone or going). */
  get disconnected(): boolean {
    return this.conn.signal.aborted;
  }

  get sessionId(): string {
    return this.acpSessionId;
  }

  /** `earlier`: the agent's conversation a worker before this one had for the session
   * (agent-start.ts): continued through `session/resume` or `session/load` when the agent
   * offers one, else (or when that fails) a new conversation begins; `started` says which. */
  async start(
    mcp: McpEntry | null,
    meta: Record<string, unknown>,
    earlier: { id: string } | { note: string } | null = null,
  ): Promise<void> {
    const init = await this.conn.agent.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: !!this.host.files, writeTextFile: !!this.host.files },
        terminal: false,
      },
    });
    this.capabilities = readCapabilities(init);
    this.authMethods = Array.isArray((init as { authMethods?: unknown }).authMethods)
      ? (init as { authMethods: unknown[] }).authMethods.length
      : 0;
    const mcpServers: acp.McpServer[] = mcp
      ? [
          {
            type: "http",
            name: mcp.name,
            url: mcp.url,
            headers: Object.entries(mcp.headers).map(([name, value]) => ({ name, value })),
          },
        ]
      : [];
    const opened = earlier && "id" in earlier ? await this.continueConversation(earlier.id, mcpServers, meta) : null;
    if (opened) {
      this.acpSessionId = opened.sessionId;
      this.advertised = readAdvertisement(opened.response);
      this.started = { how: "resumed", note: `continued through ${opened.method}` };
    } else {
      const res: acp.NewSessionResponse = await this.conn.agent.request("session/new", {
        cwd: this.cwd,
        mcpServers,
        _meta: { oar: meta },
      });
      this.acpSessionId = res.sessionId;
      this.advertised = readAdvertisement(res);
      if (earlier)
        this.started = { how: "fresh", note: "note" in earlier ? earlier.note : (this.continueFailure ?? "") };
    }
    this.mcpGiven = mcp !== null;
    this.mcpUrl = mcp?.url ?? null;
    this.saveState();
  }
  /** How this worker's agent conversation began (agent-start.ts). */
  started: AgentStart = { how: "new" };
  private continueFailure: string | null = null;

  /** `session/resume` (no history sent back) or else `session/load` (the agent sends the
   * conversation again as session/updates: heard by nobody) of `id`; null when the agent
   * offers neither or refused (`continueFailure` says why). */
  private async continueConversation(
    id: string,
    mcpServers: acp.McpServer[],
    meta: Record<string, unknown>,
  ): Promise<{ sessionId: string; method: string; response: unknown } | null> {
    const caps = this.capabilities!;
    const method = caps.resume ? "session/resume" : caps.loadSession ? "session/load" : null;
    if (!method) {
      this.continueFailure =
        "its agent cannot continue a conversation in a new process (it offers neither ACP session/resume nor session/load)";
      return null;
    }
    this.replaying = method === "session/load";
    try {
      const response = await this.conn.agent.request<unknown>(method, {
        sessionId: id,
        cwd: this.cwd,
        mcpServers,
        _meta: { oar: meta },
      });
      return { sessionId: id, method, response };
    } catch (err) {
      const why = String((err as { message?: unknown } | null)?.message ?? err)
        .replace(/\s+/g, " ")
        .slice(0, 200);
      this.continueFailure = `its agent did not continue the earlier conversation (${method}: ${why})`;
      return null;
    } finally {
      this.replaying = false;
    }
  }
  /** A `session/load` is sending the conversation back: its updates belong to no turn. */
  private replaying = false;
  private mcpGiven = false;

  /** Brings the agent's model, effort and mode to `want` with the calls it advertised;
   * returns what was applied (for the record). A refused call throws. */
  async configure(want: Desired): Promise<string[]> {
    const done: string[] = [];
    const calls = configCalls(this.advertised, this.adapter, want, this.applied);
    if (want.model !== this.applied.model) {
      // The agent did not list the asked model: it keeps its own, and the reply says which.
      this.runningModel = calls.some((c) => c.what.startsWith("model "))
        ? null
        : currentModel(this.advertised, this.adapter);
    }
    for (const call of calls) {
      const { method, what, ...rest } = call;
      const res = await this.conn.agent.request<unknown>(method, { sessionId: this.acpSessionId, ...rest });
      const cfg = obj(res).configOptions;
      if (Array.isArray(cfg))
        this.advertised = {
          ...this.advertised,
          configOptions: readAdvertisement({ configOptions: cfg }).configOptions,
        };
      done.push(what);
    }
    this.applied = { ...want };
    if (done.length) this.saveState();
    return done;
  }

  /** The next prompt needs nothing first: `want` is applied (configure makes no call), and
   * the first prompt's wait and a reconnect after a restart are behind it. */
  settledFor(want: Desired): boolean {
    return (
      this.promptedOnce &&
      !this.reconnectDue &&
      configCalls(this.advertised, this.adapter, want, this.applied).length === 0
    );
  }

  /** The adapter's wait before the first prompt (Grok: its MCP connection), and its
   * reconnect of relay_tool before the first prompt after a relay restart; bounded. Answers
   * a note for the session's agentStart when the prompt goes out without relay_tool. */
  async beforePrompt(): Promise<string | null> {
    if (this.reconnectDue) {
      this.reconnectDue = false;
      await this.reconnectRelayTool(this.adapter!.reconnectMcp!);
    }
    const first = !this.promptedOnce;
    if (first) {
      this.promptedOnce = true;
      this.saveState();
      const w = this.adapter?.waitsForBeforeFirstPrompt;
      if (w && this.mcpGiven) await this.waitForNotice(w.method, w.timeoutMs);
    }
    // Before the first prompt; at once before the first one a restarted relay sends (the agent
    // lost its MCP connection with the old relay), or once its stderr says its start failed.
    const retry = this.adapter?.mcpRetry;
    if (retry && this.mcpGiven && this.host.toolListings && !this.mcpRetried) {
      if (first) return this.retryRelayTool(retry, this.host.toolListings, false);
      if (this.keptWorker || retry.failed.test(this.stderr))
        return this.retryRelayTool(retry, this.host.toolListings, true);
    }
    return null;
  }
  /** The adapter's `mcpRetry` asked the agent to connect relay_tool again (once per worker). */
  private mcpRetried = false;
  /** Taken back from an earlier relay (Workers.attachAll). */
  private keptWorker = false;

  /** The adapter's `mcpRetry`. Unless `askNow`, it first waits for the agent's own MCP start
   * to end: relay_tool kept a moment (listed on an MCP session it did not end: one past its
   * own deadline ends it within moments), or its stderr saying the start failed. Then it asks
   * the agent to connect again, and again (at most MCP_RETRIES) while it ends its MCP session
   * holding none. All of it within `timeoutMs` (the prompt waits for it; the agent's own
   * start gets half), the outcome in the relay's log; answers the session's note when the
   * prompt goes out without relay_tool. */
  private async retryRelayTool(
    retry: NonNullable<ProviderAdapter["mcpRetry"]>,
    listings: NonNullable<WorkerHost["toolListings"]>,
    askNow: boolean,
  ): Promise<string | null> {
    const started = performance.now();
    const deadline = started + retry.timeoutMs;
    const left = () => deadline - performance.now();
    const kept = () => listings.heldFor() >= MCP_KEPT_MS;
    // Woken by a listing or an MCP session's end on /mcp, and every 250 ms to read its stderr.
    const until = async (failed: () => boolean, by = deadline): Promise<boolean> => {
      while (!failed() && !kept() && performance.now() < by && this.alive)
        await listings.next(Math.min(250, by - performance.now()));
      return kept() && !failed();
    };
    // The agent's own start gets half the bound: the asks to connect again get the rest.
    if (!askNow && (await until(() => retry.failed.test(this.stderr), started + retry.timeoutMs / 2))) return null;
    let asked = 0;
    let outcome = "still without relay_tool";
    while (this.alive && asked < MCP_RETRIES && left() > 0) {
      const ends = listings.counts().ends;
      asked++;
      this.mcpRetried = true;
      let timer: NodeJS.Timeout | undefined;
      const answered = await Promise.race([
        this.conn.agent.request(retry.method, retry.params).then(
          () => "ok",
          (err: unknown) => `refused (${(err as Error)?.message ?? err})`,
        ),
        new Promise<string>((r) => (timer = setTimeout(() => r("no answer"), left()))),
      ]);
      clearTimeout(timer);
      if (answered !== "ok") {
        outcome = answered;
        break;
      }
      if (await until(() => listings.counts().ends > ends && listings.heldFor() < 0)) {
        outcome = "relay_tool listed and kept";
        break;
      }
    }
    // Listed on an MCP session still open at the bound: it holds relay_tool, though not for long yet.
    const held = listings.heldFor() >= 0;
    if (held && outcome === "still without relay_tool") outcome = "relay_tool listed";
    const ms = Math.round(performance.now() - started);
    console.log(
      `[workers] agent of ACP session ${this.acpSessionId.slice(0, 8)}… was without relay_tool's MCP server${askNow ? "" : " after its start"}; asked ${asked} time(s) to connect again: ${this.alive ? outcome : "the agent exited"} (${ms} ms)`,
    );
    if (held || !this.alive) return null;
    return `relay_tool was not available: the agent did not connect to the relay's MCP server within ${Math.round(retry.timeoutMs / 1000)} s (asked ${asked} time(s) to connect again: ${outcome}); the prompt went out without it`;
  }

  /** The reconnect command as a prompt of the relay's own: its output goes to the relay's
   * log only, it may ask nothing, and it is cancelled past its bound (then given a moment to
   * end, so nothing of it runs into the owner's prompt). */
  private async reconnectRelayTool(step: NonNullable<ProviderAdapter["reconnectMcp"]>): Promise<void> {
    const heard = (this.systemStep = { said: "" });
    const started = performance.now();
    const asked = this.conn.agent.request<acp.PromptResponse>("session/prompt", {
      sessionId: this.acpSessionId,
      prompt: [{ type: "text", text: step.prompt(RELAY_MCP_NAME) }],
    });
    const settled = asked.then(
      () => "done",
      (err: unknown) => `refused (${(err as Error)?.message ?? err})`,
    );
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<string>((r) => (timer = setTimeout(() => r("timeout"), step.timeoutMs)));
    try {
      let outcome = await Promise.race([settled, bound]);
      if (outcome === "timeout") {
        this.cancel();
        outcome = `not done within ${step.timeoutMs / 1000} s, cancelled`;
        await Promise.race([settled, new Promise((r) => setTimeout(r, 5_000).unref())]);
      }
      const said = heard.said.replace(/\s+/g, " ").trim().slice(0, 200);
      console.log(
        `[workers] agent of ACP session ${this.acpSessionId.slice(0, 8)}… asked to reconnect relay_tool after the relay restart: ${outcome} (${Math.round(performance.now() - started)} ms)${said ? `; it said: ${said}` : ""}`,
      );
    } finally {
      clearTimeout(timer);
      this.systemStep = null;
    }
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

  /** Ends the agent's process (its whole process group when the keeper holds it). */
  kill(): void {
    if (!this.alive) return;
    this.conn.close();
    void this.pipeReady.then((p) => p?.kill());
  }

  /** Ends the worker politely: closing stdin lets the agent exit on its own. */
  stop(): void {
    if (!this.alive) return;
    this.conn.close();
    void this.pipeReady.then((p) => p?.end());
  }
}

/** One line from the agent as a JSON-RPC message, or the error the SDK's ndjson reader
 * answers for it (not JSON, a batch, not an object, past its size limit). */
function readMessage(line: string): { message: acp.AnyMessage } | { error: acp.RequestError } {
  if (line.length > acp.DEFAULT_MAX_MESSAGE_BYTES)
    return { error: acp.RequestError.invalidRequest(undefined, "message too large") };
  let m: unknown;
  try {
    m = JSON.parse(line);
  } catch {
    return { error: acp.RequestError.parseError() };
  }
  if (Array.isArray(m))
    return { error: acp.RequestError.invalidRequest(undefined, "JSON-RPC batches are not supported") };
  return m && typeof m === "object" ? { message: m as acp.AnyMessage } : { error: acp.RequestError.invalidRequest(m) };
}

/** Which lines of a replayed turn log the new relay takes: notifications only (requests the
 * agent still waits on are sent again after the replay; old responses belong to the old
 * connection), and no task output the old relay already wrote to the task's log. */
function replayed(line: string, delivered: boolean): boolean {
  let m: Record<string, unknown>;
  try {
    m = obj(JSON.parse(line));
  } catch {
    return false;
  }
  if ("id" in m || typeof m.method !== "string") return false;
  return !(delivered && m.method === "_oar/task_output");
}
