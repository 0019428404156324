// The scripted agent's side of relay_tool: a lazily opened MCP client to the
// session's "relay" MCP server (Streamable HTTP). `/tool JSON` lines go through here.

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Cancelled, errorMessage, log } from "./util.ts";

/** Long relay actions (waits, approvals) may take a while; progress resets the clock. */
const TOOL_TIMEOUT_MS = 2 * 60 * 60 * 1000;

/** The MCP client SDK (and the zod it builds its schemas with) is several MB of every worker
 * process: loaded by the first `/tool`, which most scripted sessions never send. */
const mcpSdk = () =>
  Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  ]);

export type RelayServer = { url: string; headers: { name: string; value: string }[] };

type Connected = { client: Client; toolName: string; inFlight: Set<(e: Error) => void> };

export class RelayClient {
  private connecting: Promise<Connected> | undefined;

  constructor(private readonly server: RelayServer) {}

  private connect(signal: AbortSignal): Promise<Connected> {
    if (!this.connecting) {
      const attempt = (async () => {
        const [{ Client }, { StreamableHTTPClientTransport }] = await mcpSdk();
        const headers = Object.fromEntries(this.server.headers.map((h) => [h.name, h.value]));
        const client = new Client({ name: "oar-scripted", version: "1.0.0" });
        const transport = new StreamableHTTPClientTransport(new URL(this.server.url), { requestInit: { headers } });
        // A call's answer stream that breaks (the relay died) is not resumed by the SDK, and
        // the call would wait for its 2-hour timeout: the calls in flight fail instead, their
        // outcome unknown.
        const inFlight = new Set<(e: Error) => void>();
        try {
          await client.connect(transport, { signal });
          const sdkOnError = transport.onerror;
          transport.onerror = (e) => {
            sdkOnError?.call(transport, e);
            if (!/SSE stream disconnected/.test(e.message)) return;
            for (const fail of inFlight)
              fail(
                new Error(
                  `the connection to the relay was lost during the call (${e.message}); whether it was done is unknown`,
                ),
              );
          };
          const { tools } = await client.listTools(undefined, { signal });
          const names = new Set(tools.map((t) => t.name));
          const toolName = !names.has("relay_tool") && names.has("remote_relay") ? "remote_relay" : "relay_tool";
          return { client, toolName, inFlight };
        } catch (e) {
          void client.close().catch(() => {});
          throw e;
        }
      })();
      this.connecting = attempt;
      // A failed (or cancelled) connect is retried by the next /tool.
      attempt.catch(() => {
        if (this.connecting === attempt) this.connecting = undefined;
      });
    }
    return this.connecting;
  }

  /**
   * Calls relay_tool with `args`; returns the compact JSON text of the tool's result.
   * Throws Cancelled when `signal` aborts; other failures become {"ok":false,...} JSON.
   */
  async call(args: Record<string, unknown>, signal: AbortSignal): Promise<string> {
    try {
      let result: Awaited<ReturnType<RelayClient["callOnce"]>>;
      try {
        result = await this.callOnce(args, signal);
      } catch (e) {
        // A relay that restarted does not know our MCP session: the MCP rule for clients is
        // to start a new one and send again (once).
        if (signal.aborted || !/Session not found|HTTP 404/.test(errorMessage(e))) throw e;
        log("relay_tool: MCP session not found (the relay restarted?): reconnecting once");
        await this.reset();
        result = await this.callOnce(args, signal);
      }
      const content = (result as { content?: unknown }).content;
      const first = Array.isArray(content) ? content[0] : undefined;
      const text =
        first && typeof first === "object" && (first as { type?: unknown }).type === "text"
          ? String((first as { text?: unknown }).text ?? "")
          : JSON.stringify(content ?? null);
      try {
        return JSON.stringify(JSON.parse(text));
      } catch {
        // Not JSON (e.g. the MCP layer's own error text): still hand back one JSON line.
        return JSON.stringify({ ok: false, error: text });
      }
    } catch (e) {
      if (signal.aborted) throw new Cancelled();
      log(`relay_tool call failed: ${errorMessage(e)}`);
      await this.reset();
      return JSON.stringify({ ok: false, error: errorMessage(e) });
    }
  }

  private async callOnce(args: Record<string, unknown>, signal: AbortSignal) {
    const { client, toolName, inFlight } = await this.connect(signal);
    let fail: (e: Error) => void = () => {};
    const lost = new Promise<never>((_, reject) => (fail = reject));
    inFlight.add(fail);
    return Promise.race([
      lost,
      client.callTool({ name: toolName, arguments: args }, undefined, {
        signal,
        timeout: TOOL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        onprogress: (p) => log(`relay_tool progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ""}`),
      }),
    ]).finally(() => inFlight.delete(fail));
  }

  /** Drops the connection (the next call reconnects). */
  async reset(): Promise<void> {
    const pending = this.connecting;
    this.connecting = undefined;
    if (!pending) return;
    try {
      const { client } = await pending;
      await client.close();
    } catch {
      // already failed or closed
    }
  }
}
