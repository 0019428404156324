import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Relay } from "../relay.ts";
import { callRelayTool } from "../actions/dispatch.ts";
import { toolInputSchema, TOOL_DESCRIPTION } from "./tool-schema.ts";

const PROGRESS_EVERY_MS = 15_000;
const MAX_MCP_SESSIONS = 2_000;

interface Entry {
  transport: WebStandardStreamableHTTPServerTransport;
  callerId: string;
  lastUsed: number;
}

/** The /mcp endpoint (contract §2): Streamable HTTP, one MCP session per agent connection,
 * each bound to the agent token that opened it (the SDK does not bind them: STACK gotcha 1). */
export class McpEndpoint {
  private entries = new Map<string, Entry>();
  private schema = toolInputSchema();

  constructor(private relay: Relay) {}

  async handle(c: Context): Promise<Response> {
    const auth = c.req.header("authorization") ?? "";
    const token = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
    const caller = token ? this.relay.sessions.byToken(token) : undefined;
    if (!caller) return c.json({ jsonrpc: "2.0", error: { code: -32001, message: "Unauthorized: a session's agent token is required." }, id: null }, 401);
    const sid = c.req.header("mcp-session-id");
    if (sid) {
      const entry = this.entries.get(sid);
      if (!entry) return c.json({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }, 404);
      if (entry.callerId !== caller.id) {
        return c.json({ jsonrpc: "2.0", error: { code: -32001, message: "This MCP session belongs to another conversation's token." }, id: null }, 403);
      }
      entry.lastUsed = Date.now();
      return entry.transport.handleRequest(c.req.raw);
    }
    this.evict();
    const server = this.makeServer(caller.id);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.entries.set(id, { transport, callerId: caller.id, lastUsed: Date.now() });
      },
      onsessionclosed: (id) => {
        this.entries.delete(id);
      },
    });
    await server.connect(transport);
    return transport.handleRequest(c.req.raw);
  }

  private evict(): void {
    if (this.entries.size < MAX_MCP_SESSIONS) return;
    const oldest = [...this.entries.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed).slice(0, this.entries.size - MAX_MCP_SESSIONS + 1);
    for (const [id, e] of oldest) {
      this.entries.delete(id);
      e.transport.close().catch(() => {});
    }
  }

  private makeServer(callerId: string): Server {
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
      const progressToken = req.params._meta?.progressToken;
      let step = 0;
      const progress = (message: string) => {
        if (progressToken === undefined) return;
        extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress: ++step, message } }).catch(() => {});
      };
      // Long waits outlive a client's request timeout unless progress keeps it alive.
      const timer = progressToken !== undefined ? setInterval(() => progress("waiting"), PROGRESS_EVERY_MS) : undefined;
      try {
        const result = await callRelayTool(this.relay, caller, req.params.arguments ?? {}, { signal: extra.signal, progress, tool: name });
        return { content: [{ type: "text", text: JSON.stringify(result, null, 2) }], ...(result.ok === false ? { isError: true } : {}) };
      } finally {
        if (timer) clearInterval(timer);
      }
    });
    return server;
  }
}
