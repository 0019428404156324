import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { callRelayTool } from "../actions/dispatch.ts";
import type { ActionServices } from "../actions/services.ts";
import type { McpDeps } from "./deps.ts";
import { toolInputSchema, TOOL_DESCRIPTION } from "./tool-schema.ts";
import { ClientGone, HttpRefusal, readBodyText } from "../api/body.ts";
import { RelayError } from "../core/errors.ts";
import { rpcError, RpcCode, toolError } from "./rpc-errors.ts";

// Progress keeps a long wait alive in clients with a request timeout (contract §2: at
// least every 20 s). Real time on purpose: it is about the client's own timer. Tests set
// OAR_PROGRESS_MS low to see notifications without waiting.
const PROGRESS_EVERY_MS = Number(process.env.OAR_PROGRESS_MS) > 0 ? Number(process.env.OAR_PROGRESS_MS) : 15_000;
/** MCP sessions kept open at once (agents that vanish never close theirs): the maxMcpSessions
 * setting; OAR_MCP_SESSIONS_MAX still overrides it (tests lower it). */
// `|| 0`: an unset or non-numeric value is NaN, which Math.max would pass through.
const ENV_MCP_SESSIONS_MAX = Math.max(Number(process.env.OAR_MCP_SESSIONS_MAX) || 0, 0);
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
 * each bound to the agent token that opened it (the SDK does not bind them: STACK gotcha 1).
 * A session id it does not hold, sent with a valid token, is taken up again under that id
 * (see handle): agents outlive relay restarts and keep their id, and not every CLI
 * re-initializes after a 404. */
export class McpEndpoint {
  private entries = new Map<string, Entry>();
  /** Session ids being revived (see handle): the server-side initialize in progress. */
  private reviving = new Map<string, Promise<void>>();
  private tick = 0;
  private schema = toolInputSchema();

  private services: ActionServices;
  private secretMask: McpDeps["secretMask"];
  private toolListings: McpDeps["toolListings"];

  constructor(d: McpDeps) {
    this.services = d.services;
    this.secretMask = d.secretMask;
    this.toolListings = d.toolListings;
  }

  async handle(c: Context): Promise<Response> {
    const auth = c.req.header("authorization") ?? "";
    const token = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
    const caller = token ? this.services.sessions.byToken(token) : undefined;
    if (!caller) return rpcError(c, 401, RpcCode.unauthorized, "Unauthorized: a session's agent token is required.");
    const sid = c.req.header("mcp-session-id");
    // A session id still being revived by a request just before this one is waited for, so
    // two requests of one client (its GET stream and a call) never make two transports.
    if (sid && !this.entries.has(sid)) await this.reviving.get(sid)?.catch(() => {});
    let entry = sid ? this.entries.get(sid) : undefined;
    if (sid && !entry && c.req.method === "DELETE")
      return rpcError(c, 404, RpcCode.unauthorized, "Session not found", "REMOTE_RELAY_NOT_FOUND");
    // A GET stream (server-initiated messages: this server sends none outside a call's own
    // stream) is not worth reviving a session for: the SDK client reopens it ~1 s after an
    // eviction closed it, which would evict the next one, round and round. 405 is the
    // spec's "no GET stream here", which clients take quietly; a POST revives the session.
    if (sid && !entry && c.req.method === "GET") {
      return rpcError(
        c,
        405,
        RpcCode.server,
        "No GET stream for this MCP session: POST requests take it up again.",
        "REMOTE_RELAY_INVALID_INPUT",
        { allow: "POST, DELETE" },
      );
    }
    if (entry && entry.callerId !== caller.id) return this.notYours(c);
    if (entry) entry.lastUsed = ++this.tick;
    let body: Awaited<ReturnType<McpEndpoint["readBody"]>>;
    try {
      body = await this.readBody(c);
    } catch (err) {
      // Coded like every refusal (data.code); a client gone mid-body is nobody's failure.
      if (err instanceof HttpRefusal) return rpcError(c, err.status, RpcCode.invalidRequest, err.message, err.code);
      if (err instanceof ClientGone)
        return rpcError(c, 400, RpcCode.invalidRequest, err.message, "REMOTE_RELAY_INVALID_INPUT");
      throw err;
    }
    if (entry) return entry.transport.handleRequest(body.request, body.parsed);
    // An id this relay does not hold (it restarted, or evicted the session at the cap) from
    // a valid token is revived as that token's session: clients that do not re-initialize
    // after a 404 (several real CLIs) keep relay_tool. An initialize opens a new session.
    const revive = sid && !isInitialize(body.parsed?.parsedBody) ? sid : undefined;
    const asked = c.req.header("mcp-protocol-version");
    if (revive && asked && !SUPPORTED_PROTOCOL_VERSIONS.includes(asked)) {
      return rpcError(
        c,
        400,
        RpcCode.server,
        `Bad Request: Unsupported protocol version: ${asked} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
      );
    }
    if (revive) {
      // Another request of the same id may have revived it while this body was read.
      await this.reviving.get(revive)?.catch(() => {});
      entry = this.entries.get(revive);
      if (entry) {
        if (entry.callerId !== caller.id) return this.notYours(c);
        entry.lastUsed = ++this.tick;
        return entry.transport.handleRequest(body.request, body.parsed);
      }
    }
    const full = this.evict();
    if (full) {
      const text = `The relay holds its most MCP sessions at once (maxMcpSessions ${full}), each in the middle of a call. Try again when one ends. Nothing was done.`;
      return rpcError(c, 429, RpcCode.server, text, "REMOTE_RELAY_LIMIT");
    }
    const calls = { active: 0 };
    const server = this.makeServer(caller.id, calls);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => revive ?? randomUUID(),
      onsessioninitialized: (id) => {
        this.entries.set(id, { transport, callerId: caller.id, lastUsed: ++this.tick, calls });
      },
      onsessionclosed: (id) => {
        this.entries.delete(id);
        this.toolListings?.ended(caller.id, id);
      },
    });
    if (!revive) {
      await server.connect(transport);
      return transport.handleRequest(body.request, body.parsed);
    }
    // Registered before the first await: a request of the same id arriving now waits for it.
    const done = server.connect(transport).then(() => reviveSession(transport, c.req.raw, revive));
    this.reviving.set(revive, done);
    try {
      await done;
    } catch (err) {
      const e = this.entries.get(revive);
      if (e?.transport === transport) this.drop(revive, e);
      else transport.close().catch(() => {});
      return rpcError(
        c,
        500,
        RpcCode.internal,
        `This MCP session could not be taken up again (${(err as Error).message}). Initialize a new one. Nothing was done.`,
      );
    } finally {
      this.reviving.delete(revive);
    }
    // Rare (once per agent after a restart, or after an eviction) and worth seeing in the log.
    console.log(
      `[mcp] MCP session ${revive.slice(0, 8)}… of ${caller.id} taken up again (the relay had restarted or evicted it)`,
    );
    return transport.handleRequest(body.request, body.parsed);
  }

  private notYours(c: Context): Response {
    return rpcError(
      c,
      403,
      RpcCode.unauthorized,
      "This MCP session belongs to another conversation's token. Nothing was done.",
      "REMOTE_RELAY_FORBIDDEN",
    );
  }

  /** Reads a POST body once. Tool arguments that are not an object are wrapped so they reach
   * relay_tool's own check (a coded INVALID_INPUT) instead of the SDK's bare -32602. */
  private async readBody(c: Context): Promise<{ request: Request; parsed?: { parsedBody: unknown } }> {
    const req = c.req.raw;
    if (req.method !== "POST") return { request: req };
    const text = await readBodyText(req, this.services.settings.get().maxBodyMb * 1024 * 1024);
    const rebuilt = new Request(req.url, { method: req.method, headers: req.headers, body: text });
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { request: rebuilt };
    }
    for (const msg of Array.isArray(parsed) ? parsed : [parsed]) {
      const params =
        msg && typeof msg === "object" && (msg as { method?: unknown }).method === "tools/call"
          ? (msg as { params?: unknown }).params
          : undefined;
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
  /** Returns the cap when nothing could be evicted to make room (all in a call), else 0. */
  private evict(): number {
    const MAX_MCP_SESSIONS = ENV_MCP_SESSIONS_MAX || this.services.settings.get().maxMcpSessions;
    if (this.entries.size < MAX_MCP_SESSIONS) return 0;
    for (const [id, e] of this.entries) {
      if (!this.services.sessions.get(e.callerId)) this.drop(id, e);
    }
    const idle = [...this.entries.entries()]
      .filter(([, e]) => e.calls.active === 0)
      .sort((x, y) => x[1].lastUsed - y[1].lastUsed);
    for (const [id, e] of idle.slice(0, Math.max(0, this.entries.size - MAX_MCP_SESSIONS + 1))) this.drop(id, e);
    return this.entries.size < MAX_MCP_SESSIONS ? 0 : MAX_MCP_SESSIONS;
  }

  private drop(id: string, e: Entry): void {
    this.entries.delete(id);
    e.transport.close().catch(() => {});
  }

  private makeServer(callerId: string, calls: { active: number }): Server {
    const server = new Server(
      { name: "relay", version: this.services.identity.version },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, async (_req, extra) => {
      this.toolListings?.listed(callerId, extra.sessionId);
      return { tools: [{ name: "relay_tool", description: TOOL_DESCRIPTION, inputSchema: this.schema as never }] };
    });
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const name = req.params.name;
      if (name !== "relay_tool" && name !== "remote_relay") {
        return toolError(
          new RelayError("REMOTE_RELAY_UNKNOWN_ACTION", `Unknown tool "${name}": this server has relay_tool.`),
        );
      }
      const caller = this.services.sessions.get(callerId);
      if (!caller) {
        return toolError(
          new RelayError(
            "REMOTE_RELAY_NOT_FOUND",
            "The conversation this token belonged to was deleted. Nothing was done.",
          ),
        );
      }
      if (caller.archived_at) {
        // An archived conversation's token acts no more (its worker is gone; a copy of the
        // token elsewhere must not keep prompting the owner's agents).
        return toolError(
          new RelayError(
            "REMOTE_RELAY_ARCHIVED",
            `The conversation this token belongs to (${caller.id}) is archived: its agent token no longer acts. Nothing was done.`,
          ),
        );
      }
      const given = req.params.arguments as Record<string, unknown> | undefined;
      const args = given && Object.hasOwn(given, RAW_ARGUMENTS) ? given[RAW_ARGUMENTS] : (given ?? {});
      const progressToken = req.params._meta?.progressToken;
      let step = 0;
      const progress = (message: string) => {
        if (progressToken === undefined) return;
        extra
          .sendNotification({ method: "notifications/progress", params: { progressToken, progress: ++step, message } })
          .catch(() => {});
      };
      // Long waits outlive a client's request timeout unless progress keeps it alive.
      const timer = progressToken !== undefined ? setInterval(() => progress("waiting"), PROGRESS_EVERY_MS) : undefined;
      calls.active++;
      try {
        const result = await callRelayTool(this.services, caller, args, { signal: extra.signal, progress, tool: name });
        // Compact (contract §2 allows it): a 1,000-session list is ~30% smaller, and each byte is
        // escaped, encoded and parsed again by the transport and the client (bench/RESULTS.md).
        // Secrets that reached message text (keys, tokens in a prompt) are masked on the way out.
        return {
          content: [{ type: "text", text: this.secretMask.maskJson(JSON.stringify(result)) }],
          ...(result.ok === false ? { isError: true } : {}),
        };
      } finally {
        calls.active--;
        if (timer) clearInterval(timer);
      }
    });
    return server;
  }
}

function isInitialize(parsed: unknown): boolean {
  return (Array.isArray(parsed) ? parsed : [parsed]).some(
    (m) => !!m && typeof m === "object" && (m as { method?: unknown }).method === "initialize",
  );
}

/** Initializes a fresh transport (whose generator returns `sid`) as the client did once with
 * a relay that no longer holds the session: an `initialize` in the protocol version the
 * request names (else the SDK's latest), then `notifications/initialized`. The answers go
 * nowhere: the client already had them. After this the transport takes `sid`'s requests. */
async function reviveSession(
  transport: WebStandardStreamableHTTPServerTransport,
  req: Request,
  sid: string,
): Promise<void> {
  const protocolVersion = req.headers.get("mcp-protocol-version") ?? LATEST_PROTOCOL_VERSION;
  const post = (message: unknown, session?: string) =>
    new Request(req.url, {
      method: "POST",
      headers: {
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
        ...(session ? { "mcp-session-id": session, "mcp-protocol-version": protocolVersion } : {}),
      },
      body: JSON.stringify(message),
    });
  const init = await transport.handleRequest(
    post({
      jsonrpc: "2.0",
      id: "oar-revive",
      method: "initialize",
      params: { protocolVersion, capabilities: {}, clientInfo: { name: "revived", version: "0" } },
    }),
  );
  // The SSE stream ends once the server answered: then the session is initialized.
  await init.text();
  if (init.status !== 200) throw new Error(`MCP session revival: initialize answered ${init.status}`);
  const note = await transport.handleRequest(post({ jsonrpc: "2.0", method: "notifications/initialized" }, sid));
  await note.text();
}
