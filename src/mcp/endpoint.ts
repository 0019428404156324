import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Relay } from "../relay.ts";
import { callRelayTool } from "../actions/dispatch.ts";
import { toolInputSchema, TOOL_DESCRIPTION } from "./tool-schema.ts";

// Progress keeps a long wait alive in clients with a request timeout (contract §2: at
// least every 20 s). Real time on purpose: it is about the client's own timer. Tests set
// OAR_PROGRESS_MS low to see notifications without waiting.
const PROGRESS_EVERY_MS = Number(process.env.OAR_PROGRESS_MS) > 0 ? Number(process.env.OAR_PROGRESS_MS) : 15_000;
/** MCP sessions kept open at once (agents that vanish never close theirs). Tests lower it. */
const MAX_MCP_SESSIONS = Number(process.env.OAR_MCP_SESSIONS_MAX) > 0 ? Number(process.env.OAR_MCP_SESSIONS_MAX) : 2_000;
/** Largest JSON-RPC body taken (a prompt is at most 200,000 characters). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Where non-object tool arguments travel past the SDK's own schema check to ours. */
const RAW_ARGUMENTS = "__oar_raw_arguments";

interface Entry {
  transport: WebStandardStreamableHTTPServerTransport;
  callerId: string;
  /** Order of last use (a counter, not a time): eviction drops the least recent. */
  lastUsed: number;
  /** Tool calls running on this MCP session: never evicted while one waits. */
  calls: { active: number };
}

/** The /mcp endpoint (contract §2): Streamable HTTP, one MCP session per agent connection,
 * each bound to the agent token that opened it (the SDK does not bind them: STACK gotcha 1). */
export class McpEndpoint {
  private entries = new Map<string, Entry>();
  private tick = 0;
  private schema = toolInputSchema();

  constructor(private relay: Relay) {}

  async handle(c: Context): Promise<Response> {
    const auth = c.req.header("authorization") ?? "";
    const token = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
    const caller = token ? this.relay.sessions.byToken(token) : undefined;
    if (!caller) return c.json({ jsonrpc: "2.0", error: { code: -32001, message: "Unauthorized: a session's agent token is required." }, id: null }, 401);
    const sid = c.req.header("mcp-session-id");
    let entry: Entry | undefined;
    if (sid) {
      entry = this.entries.get(sid);
      if (!entry) return c.json({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }, 404);
      if (entry.callerId !== caller.id) {
        return c.json({ jsonrpc: "2.0", error: { code: -32001, message: "This MCP session belongs to another conversation's token. Nothing was done." }, id: null }, 403);
      }
      entry.lastUsed = ++this.tick;
    }
    const body = await this.readBody(c);
    if (!body) return c.json({ jsonrpc: "2.0", error: { code: -32600, message: `The request body is larger than ${MAX_BODY_BYTES} bytes. Nothing was done.` }, id: null }, 413);
    if (entry) return entry.transport.handleRequest(body.request, body.parsed);
    this.evict();
    const calls = { active: 0 };
    const server = this.makeServer(caller.id, calls);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.entries.set(id, { transport, callerId: caller.id, lastUsed: ++this.tick, calls });
      },
      onsessionclosed: (id) => {
        this.entries.delete(id);
      },
    });
    await server.connect(transport);
    return transport.handleRequest(body.request, body.parsed);
  }

  /** Reads a POST body once. Tool arguments that are not an object are wrapped so they reach
   * relay_tool's own check (a coded INVALID_INPUT) instead of the SDK's bare -32602. */
  private async readBody(c: Context): Promise<{ request: Request; parsed?: { parsedBody: unknown } } | null> {
    const req = c.req.raw;
    if (req.method !== "POST") return { request: req };
    if (Number(req.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) return null;
    const text = await req.text();
    if (text.length > MAX_BODY_BYTES) return null;
    const rebuilt = new Request(req.url, { method: req.method, headers: req.headers, body: text });
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { request: rebuilt };
    }
    for (const msg of Array.isArray(parsed) ? parsed : [parsed]) {
      const params = msg && typeof msg === "object" && (msg as { method?: unknown }).method === "tools/call" ? (msg as { params?: unknown }).params : undefined;
      if (!params || typeof params !== "object") continue;
      const args = (params as Record<string, unknown>).arguments;
      if (args !== undefined && (args === null || typeof args !== "object" || Array.isArray(args))) {
        (params as Record<string, unknown>).arguments = { [RAW_ARGUMENTS]: args };
      }
    }
    return { request: rebuilt, parsed: { parsedBody: parsed } };
  }

  /** Keeps at most MAX_MCP_SESSIONS: first those of deleted conversations, then the least
   * recently used that are not in the middle of a call. */
  private evict(): void {
    if (this.entries.size < MAX_MCP_SESSIONS) return;
    for (const [id, e] of this.entries) {
      if (!this.relay.sessions.get(e.callerId)) this.drop(id, e);
    }
    const idle = [...this.entries.entries()].filter(([, e]) => e.calls.active === 0).sort((x, y) => x[1].lastUsed - y[1].lastUsed);
    for (const [id, e] of idle.slice(0, Math.max(0, this.entries.size - MAX_MCP_SESSIONS + 1))) this.drop(id, e);
  }

  private drop(id: string, e: Entry): void {
    this.entries.delete(id);
    e.transport.close().catch(() => {});
  }

  private makeServer(callerId: string, calls: { active: number }): Server {
    const server = new Server({ name: "relay", version: this.relay.version }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: "relay_tool", description: TOOL_DESCRIPTION, inputSchema: this.schema as never }],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const name = req.params.name;
      if (name !== "relay_tool" && name !== "remote_relay") {
        return { content: [{ type: "text", text: JSON.stringify({ ok: false, code: "REMOTE_RELAY_UNKNOWN_ACTION", error: `Unknown tool "${name}": this server has relay_tool.` }) }], isError: true };
      }
      const caller = this.relay.sessions.get(callerId);
      if (!caller) {
        return { content: [{ type: "text", text: JSON.stringify({ ok: false, code: "REMOTE_RELAY_NOT_FOUND", error: "The conversation this token belonged to was deleted. Nothing was done." }) }], isError: true };
      }
      const given = req.params.arguments as Record<string, unknown> | undefined;
      const args = given && Object.hasOwn(given, RAW_ARGUMENTS) ? given[RAW_ARGUMENTS] : (given ?? {});
      const progressToken = req.params._meta?.progressToken;
      let step = 0;
      const progress = (message: string) => {
        if (progressToken === undefined) return;
        extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress: ++step, message } }).catch(() => {});
      };
      // Long waits outlive a client's request timeout unless progress keeps it alive.
      const timer = progressToken !== undefined ? setInterval(() => progress("waiting"), PROGRESS_EVERY_MS) : undefined;
      calls.active++;
      try {
        const result = await callRelayTool(this.relay, caller, args, { signal: extra.signal, progress, tool: name });
        // Compact (contract §2 allows it): a 1,000-session list is ~30% smaller, and each byte is
        // escaped, encoded and parsed again by the transport and the client (bench/RESULTS.md).
        return { content: [{ type: "text", text: JSON.stringify(result) }], ...(result.ok === false ? { isError: true } : {}) };
      } finally {
        calls.active--;
        if (timer) clearInterval(timer);
      }
    });
    return server;
  }
}
