import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorCode, RelayError } from "../core/errors.ts";

// How /mcp refuses: outside a tool call, a JSON-RPC error (with the contract's code in
// `data.code` where one applies); inside one, a tool result with `isError` (MCP calls never
// throw, STYLE.md), whose text is the same `{ ok: false, code, error }` every refusal is.

/** The JSON-RPC error codes /mcp answers with. */
export const RpcCode = { unauthorized: -32001, server: -32000, invalidRequest: -32600, internal: -32603 } as const;
export type RpcCode = (typeof RpcCode)[keyof typeof RpcCode];

export function rpcError(
  c: Context,
  status: ContentfulStatusCode,
  rpc: RpcCode,
  message: string,
  code?: ErrorCode,
  headers?: Record<string, string>,
): Response {
  return c.json(
    { jsonrpc: "2.0", error: { code: rpc, message, ...(code ? { data: { code } } : {}) }, id: null },
    status,
    headers,
  );
}

export function toolError(err: RelayError) {
  return { content: [{ type: "text" as const, text: JSON.stringify(err.toJSON()) }], isError: true };
}
