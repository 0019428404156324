// One relay_tool call as bare HTTP on an MCP session the real client opened: the relay's
// and the wire's share of a call, without the client's SSE parsing and result checks.
import type { McpSession } from "../../test/helpers/relay-process.ts";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export function rawCaller(
  url: string,
  headers: Record<string, string>,
  mcp: McpSession,
): (args: Record<string, unknown>) => Promise<string> {
  const transport = mcp.client.transport as StreamableHTTPClientTransport;
  let id = 1_000_000;
  const h = {
    ...headers,
    accept: "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-session-id": transport.sessionId!,
    "mcp-protocol-version": transport.protocolVersion ?? "2025-06-18",
  };
  return async (args) => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: id++,
      method: "tools/call",
      params: { name: "relay_tool", arguments: args },
    });
    const r = await fetch(url, { method: "POST", headers: h, body });
    const text = await r.text();
    if (r.status !== 200 || !text.includes('"result"'))
      throw new Error(`raw MCP call failed: ${r.status} ${text.slice(0, 300)}`);
    return text;
  };
}
