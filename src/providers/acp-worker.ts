import { spawn, type ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { imageOfLink, type ImageRef } from "./image-link.ts";

// One worker = one agent process spoken to over ACP (the relay is the client), hosting
// one relay session. The relay hands it the MCP entry for relay_tool in `session/new`.

export interface LaunchSpec {
  command: string;
  args: string[];
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
}

/** What the relay does with what the agent reports. */
export interface WorkerHost {
  onChunk(text: string): void;
  onTask(t: TaskNotice): void;
  onTaskOutput(taskId: string, chunk: string): void;
  askUser(q: { question: string; options: string[] }, signal: AbortSignal): Promise<{ choice?: string; answer?: string }>;
  onExit(): void;
  /** An image file the agent made (a resource_link chunk): kept in the reply's meta.images. */
  onImage?(image: ImageRef): void;
}

const obj = (p: unknown): Record<string, unknown> => (p && typeof p === "object" ? (p as Record<string, unknown>) : {});
const str = (v: unknown): string => (typeof v === "string" ? v : "");

export class AcpWorker {
  private child: ChildProcess;
  private conn: acp.ClientConnection;
  private acpSessionId = "";
  private stderrTail = "";
  readonly exited: Promise<void>;
  alive = true;

  constructor(
    spec: LaunchSpec,
    private cwd: string,
    private host: WorkerHost,
  ) {
    this.child = spawn(spec.command, spec.args, {
      cwd,
      env: { ...process.env, ...spec.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stderr!.on("data", (d: Buffer) => {
      this.stderrTail = (this.stderrTail + d.toString()).slice(-2000);
    });
    this.exited = new Promise((resolve) => {
      this.child.once("exit", () => {
        this.alive = false;
        resolve();
        this.host.onExit();
      });
      this.child.once("error", () => {
        this.alive = false;
        resolve();
        this.host.onExit();
      });
    });
    const stream = acp.ndJsonStream(
      Writable.toWeb(this.child.stdin!) as unknown as WritableStream<Uint8Array>,
      Readable.toWeb(this.child.stdout!) as unknown as ReadableStream<Uint8Array>,
    );
    const app = acp
      .client({ name: "oar" })
      .onNotification("session/update", ({ params }) => {
        const u = params.update as { sessionUpdate: string; content?: { type: string; text?: string } };
        if (u.sessionUpdate === "agent_message_chunk" && u.content?.type === "text") this.host.onChunk(u.content.text ?? "");
        const image = u.sessionUpdate === "agent_message_chunk" ? imageOfLink(u.content) : null;
        if (image) this.host.onImage?.(image);
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
        });
      })
      .onNotification("_oar/task_output", (p) => obj(p), ({ params }) => {
        this.host.onTaskOutput(str(params.taskId), str(params.chunk));
      })
      .onRequest("_oar/ask_user", (p) => obj(p), async ({ params, signal }) => {
        const options = Array.isArray(params.options) ? params.options.map(String) : [];
        return this.host.askUser({ question: str(params.question), options }, signal);
      })
      .onRequest("session/request_permission", async ({ params }) => {
        // Providers that ask before their own tools: the session's mode already decided.
        const allow = params.options.find((o) => o.kind === "allow_once" || o.kind === "allow_always") ?? params.options[0];
        return { outcome: { outcome: "selected", optionId: allow.optionId } };
      });
    this.conn = app.connect(stream);
  }

  get stderr(): string {
    return this.stderrTail;
  }

  /** The ACP connection ended (the process is gone or going). */
  get disconnected(): boolean {
    return this.conn.signal.aborted;
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
