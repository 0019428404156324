// A small ACP client for driving a real agent CLI directly (no relay): used to learn how
// each CLI behaves (notes/cli-findings.md) and by bench/agents-cold-start.ts. It records
// every message the agent sends, with its time, and answers permission requests through a
// callback.
import { spawn, type ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

export interface Seen {
  at: number;
  kind: "notification" | "request";
  method: string;
  params: any;
}

export interface DriveOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Picks a permission option id; default: the first reject option (never an "always"). */
  onPermission?: (params: any) => string | Promise<string>;
}

export class AcpDrive {
  readonly seen: Seen[] = [];
  readonly startedAt = Date.now();
  stderr = "";
  private child: ChildProcess;
  readonly conn: acp.ClientConnection;
  sessionId = "";

  constructor(command: string, args: string[], opts: DriveOptions = {}) {
    this.child = spawn(command, args, {
      cwd: opts.cwd ?? process.cwd(),
      env: { ...process.env, ...opts.env } as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stderr!.on("data", (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-8000)));
    const stream = acp.ndJsonStream(
      Writable.toWeb(this.child.stdin!) as unknown as WritableStream<Uint8Array>,
      Readable.toWeb(this.child.stdout!) as unknown as ReadableStream<Uint8Array>,
    );
    const record = (kind: Seen["kind"], method: string, params: unknown): void => {
      this.seen.push({ at: Date.now(), kind, method, params });
    };
    const app = acp
      .client({ name: "oar-drive" })
      .onNotification("session/update", ({ params }) => record("notification", "session/update", params))
      .onNotification("*" as any, ({ method, params }: any) => record("notification", method, params))
      .onRequest("session/request_permission", async ({ params }) => {
        record("request", "session/request_permission", params);
        const pick = opts.onPermission
          ? await opts.onPermission(params)
          : (params.options.find((o) => o.kind === "reject_once") ?? params.options[0]).optionId;
        return { outcome: { outcome: "selected", optionId: pick } };
      })
      .onRequest("*", async ({ method, params }) => {
        record("request", method, params);
        return {};
      });
    this.conn = app.connect(stream);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  request<T = any>(method: string, params: unknown): Promise<T> {
    return (this.conn.agent as any).request(method, params);
  }

  initialize(): Promise<any> {
    return this.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
  }

  async newSession(cwd: string, mcp?: { url: string; headers: Record<string, string> }): Promise<any> {
    const res = await this.request("session/new", {
      cwd,
      mcpServers: mcp
        ? [
            {
              type: "http",
              name: "relay",
              url: mcp.url,
              headers: Object.entries(mcp.headers).map(([name, value]) => ({ name, value })),
            },
          ]
        : [],
    });
    this.sessionId = res.sessionId;
    return res;
  }

  prompt(text: string): Promise<any> {
    return this.request("session/prompt", { sessionId: this.sessionId, prompt: [{ type: "text", text }] });
  }

  /** Updates of one kind (`sessionUpdate`), in order. */
  updates(kind?: string): any[] {
    return this.seen
      .filter((s) => s.method === "session/update" && (!kind || s.params.update.sessionUpdate === kind))
      .map((s) => s.params.update);
  }

  /** Text of agent_message_chunk updates since index `from` of `seen`. */
  text(from = 0): string {
    return this.seen
      .slice(from)
      .filter((s) => s.method === "session/update" && s.params.update.sessionUpdate === "agent_message_chunk")
      .map((s) => s.params.update.content?.text ?? "")
      .join("");
  }

  /** Resolves with the first notification matching `pred` (already seen or arriving). */
  async waitFor(pred: (s: Seen) => boolean, timeoutMs = 30_000): Promise<Seen> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.seen.find(pred);
      if (hit) return hit;
      if (Date.now() > end || this.child.exitCode !== null)
        throw new Error(`not seen in ${timeoutMs} ms; stderr: ${this.stderr.slice(-1500)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const gone = new Promise((r) => this.child.once("exit", r));
    this.conn.close();
    this.child.stdin?.end();
    const t = setTimeout(() => this.child.kill("SIGKILL"), 2000);
    await gone;
    clearTimeout(t);
  }
}
