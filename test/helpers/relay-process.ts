// Test harness: a real relay daemon (bin/oar start) in a child process with its own temp
// data dir and, by default, the manual clock; plus helpers for the owner API, MCP clients
// acting as sessions, and moving the clock. Every test file uses this one harness.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const BIN = join(ROOT, "bin", "oar");

export const realSleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
  });
}

export interface ApiResult<T = any> {
  status: number;
  json: T;
}

export interface StartOpts {
  name?: string;
  dataDir?: string;
  testClock?: boolean;
  emulateVersion?: string;
  /** Turn agent sessions on right after start (default true). */
  agentSessions?: boolean;
  settings?: Record<string, unknown>;
  /** Serve https with these PEM files (--tls-cert/--tls-key); the harness trusts that certificate. */
  tls?: { certFile: string; keyFile: string };
  /** Added to (undefined: removed from) the relay process's environment, which its workers inherit. */
  env?: Record<string, string | undefined>;
}

function withEnv(base: NodeJS.ProcessEnv, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env = { ...base };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export class TestRelay {
  proc!: ChildProcess;
  url = "";
  output = "";
  token = "";
  private clients: McpSession[] = [];

  constructor(
    readonly dataDir: string,
    readonly opts: StartOpts,
  ) {}

  static async start(opts: StartOpts = {}): Promise<TestRelay> {
    const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "oar-test-"));
    const relay = new TestRelay(dataDir, opts);
    await relay.boot();
    if (opts.agentSessions !== false || opts.settings) {
      await relay.api("PATCH", "/api/settings", {
        ...(opts.agentSessions !== false ? { agentSessions: true } : {}),
        ...(opts.settings ?? {}),
      });
    }
    return relay;
  }

  async boot(port?: number): Promise<void> {
    // A free port can be taken by another test file's relay between freePort() and listen:
    // that start fails (EADDRINUSE) and is tried again on another port.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.bootOnce(port);
      } catch (err) {
        if (attempt >= 5 || !/EADDRINUSE/.test(this.output)) throw err;
        if (port) await realSleep(500); // the same port is asked for: wait for it
        this.proc.kill("SIGKILL");
      }
    }
  }

  private async bootOnce(samePort?: number): Promise<void> {
    const port = samePort ?? (await freePort());
    const args = ["start", "--port", String(port), "--data", this.dataDir, "--name", this.opts.name ?? "desk"];
    if (this.opts.testClock !== false) args.push("--test-clock");
    if (this.opts.emulateVersion) args.push("--emulate-version", this.opts.emulateVersion);
    if (this.opts.tls) args.push("--tls-cert", this.opts.tls.certFile, "--tls-key", this.opts.tls.keyFile);
    this.output = "";
    // The keeper's orphan bound (agents outlive the relay) is short in tests unless a test sets it.
    this.proc = spawn(BIN, args, {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: withEnv({ OAR_KEEPER_ORPHAN_MS: "60000", ...process.env }, this.opts.env),
    });
    this.proc.stdout!.on("data", (d) => (this.output += d));
    this.proc.stderr!.on("data", (d) => (this.output += d));
    this.url = `${this.opts.tls ? "https" : "http"}://127.0.0.1:${port}`;
    // Up to 90 s: a relay starting from TypeScript sources can take half a minute on a loaded machine.
    for (const end = Date.now() + 90_000; Date.now() < end; ) {
      if (this.proc.exitCode !== null || this.output.includes("EADDRINUSE")) break;
      try {
        const r = await this.request("GET", `${this.url}/api/health`, {});
        // Our own relay's start line, not another process that holds the same port.
        if (r.status === 200 && this.output.includes(`listening on ${this.url}`)) {
          this.token = readFileSync(join(this.dataDir, "owner-token"), "utf8").trim();
          return;
        }
      } catch {}
      await realSleep(100);
    }
    throw new Error(`relay did not start: ${this.output.slice(-2000)}`);
  }

  async api<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResult<T>> {
    const r = await this.request(
      method,
      this.url + path,
      { authorization: `Bearer ${this.token}`, "content-type": "application/json", ...headers },
      body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    );
    const text = r.text;
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: r.status, json };
  }

  /** One request: fetch over http; over https, node:https trusting the relay's own certificate
   * (fetch takes no CA of its own). */
  async request(
    method: string,
    url: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<{ status: number; text: string }> {
    if (!this.opts.tls) {
      const r = await fetch(url, { method, headers, body });
      return { status: r.status, text: await r.text() };
    }
    const ca = readFileSync(this.opts.tls.certFile, "utf8");
    return new Promise((resolve, reject) => {
      const req = httpsRequest(url, { method, headers, ca }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(body);
    });
  }

  /** Creates a session as the owner; returns its id. */
  async createSession(body: Record<string, unknown> = {}): Promise<string> {
    const r = await this.api("POST", "/api/sessions", { provider: "scripted", title: "test", ...body });
    if (r.status !== 201) throw new Error(`create session failed: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json.id;
  }

  session(id: string): Promise<any> {
    return this.api("GET", `/api/sessions/${id}`).then((r) => r.json);
  }

  /** An MCP client acting as the session (its own agent token), as its worker would. */
  async mcp(sessionId: string): Promise<McpSession> {
    const entry = (await this.api("GET", `/api/sessions/${sessionId}/mcp`)).json;
    const s = await McpSession.connect(entry.url, entry.headers);
    this.clients.push(s);
    return s;
  }

  async advance(ms: number): Promise<string> {
    const r = await this.api("POST", "/api/test/clock", { advanceMs: ms });
    if (r.status !== 200) throw new Error(`clock: ${JSON.stringify(r.json)}`);
    return r.json.now;
  }

  async setClock(iso: string): Promise<string> {
    const r = await this.api("POST", "/api/test/clock", { set: iso });
    if (r.status !== 200) throw new Error(`clock: ${JSON.stringify(r.json)}`);
    return r.json.now;
  }

  /** Sends the owner's message and resolves with the agent's reply message once the turn ends. */
  async say(sessionId: string, text: string, timeoutMs = 20_000): Promise<any> {
    const r = await this.api("POST", `/api/sessions/${sessionId}/messages`, { text });
    if (r.status !== 201) throw new Error(`message refused: ${JSON.stringify(r.json)}`);
    const id = r.json.message_id;
    return this.waitFor(async () => {
      const s = await this.session(sessionId);
      const i = s.messages.findIndex((m: any) => m.id === id);
      if (i < 0 || s.state === "running_turn") return undefined;
      return s.messages.slice(i + 1).find((m: any) => m.role === "agent");
    }, timeoutMs);
  }

  /** Polls (real time) until fn returns something truthy: for work real processes do. */
  async waitFor<T>(
    fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
    timeoutMs = 20_000,
  ): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await fn();
      if (v) return v as T;
      if (Date.now() > end) throw new Error(`timed out waiting; relay output tail:\n${this.output.slice(-1500)}`);
      await realSleep(40);
    }
  }

  async kill(): Promise<void> {
    for (const c of this.clients.splice(0)) await c.close().catch(() => {});
    // A process ended by a signal keeps exitCode null (signalCode says how it ended).
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const exited = new Promise((r) => this.proc.once("exit", r));
    this.proc.kill("SIGKILL");
    await exited;
  }

  /** SIGKILL and start again on the same data dir (a new port; `samePort`: the same one,
   * so the relay_tool address agents kept across the restart stays valid). */
  async restart(opts: { samePort?: boolean } = {}): Promise<void> {
    await this.kill();
    await this.boot(opts.samePort ? Number(new URL(this.url).port) : undefined);
  }

  async stop(): Promise<void> {
    await this.kill();
    await endKeeper(this.dataDir);
    // A worker the keeper was ending may still write its last file while the folder goes
    // (ENOTEMPTY): node's own retries cover that.
    if (!this.opts.dataDir) rmSync(this.dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}

/** Ends a data folder's keeper (the process that holds agents across relay restarts) and
 * with it the agents, as `oar service` stop does: SIGTERM, wait, SIGKILL if it lingers.
 * Else a stopped test relay's agents would live on for the orphan bound. */
export async function endKeeper(dataDir: string): Promise<void> {
  let pid = 0;
  try {
    pid = Number(readFileSync(join(dataDir, "keeper.pid"), "utf8").trim());
    // Only a keeper: a pid file left by a crash may name a reused pid.
    if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("keeper-main")) return;
  } catch {
    return;
  }
  // A zombie (ended, not yet reaped by its new parent) counts as gone.
  const alive = () => {
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
      return false;
    }
  };
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  // The keeper gives its agents 2 s after SIGTERM before it SIGKILLs them.
  for (const end = Date.now() + 15_000; alive() && Date.now() < end; ) await realSleep(50);
  if (alive()) process.kill(pid, "SIGKILL");
}

export class McpSession {
  private constructor(readonly client: Client) {}

  static async connect(url: string, headers: Record<string, string>): Promise<McpSession> {
    const client = new Client({ name: "oar-test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return new McpSession(client);
  }

  /** Calls relay_tool (or another tool name) and returns the parsed JSON result plus isError. */
  async call(args: Record<string, unknown>, tool = "relay_tool"): Promise<any> {
    const r = (await this.client.callTool({ name: tool, arguments: args }, undefined, {
      timeout: 120_000,
      resetTimeoutOnProgress: true,
    })) as any;
    const json = JSON.parse(r.content[0].text);
    Object.defineProperty(json, "isError", { value: !!r.isError, enumerable: false });
    return json;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
