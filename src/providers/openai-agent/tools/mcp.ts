// The MCP servers a session is given in session/new (the relay's own `relay` entry among them):
// each http server is connected with the official client, its tools listed and offered to the
// model as functions. A failure inside a tool comes back as the tool's text, never as a crash.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type * as acp from "@agentclientprotocol/sdk";
import type { Tool } from "./types.ts";

/** relay_tool's waits (send, wait, cards) may take long; progress notifications reset this. */
const CALL_TIMEOUT_MS = 2 * 60 * 60 * 1000;

const safeName = (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);

export interface McpLink {
  tools: Tool[];
  close(): Promise<void>;
  /** Servers that could not be reached, with why (told to the model once). */
  problems: string[];
}

export async function connectMcp(
  servers: acp.McpServer[],
  taken: Set<string>,
  log: (s: string) => void,
): Promise<McpLink> {
  const clients: Client[] = [];
  const tools: Tool[] = [];
  const problems: string[] = [];
  for (const s of servers) {
    if (!("type" in s) || s.type !== "http") {
      problems.push(`MCP server '${s.name}' is not an http server; only http servers are supported.`);
      continue;
    }
    const client = new Client({ name: "oar-openai-agent", version: "1.0.0" });
    const headers = Object.fromEntries(s.headers.map((h) => [h.name, h.value]));
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(s.url), { requestInit: { headers } }));
      const listed = await client.listTools();
      clients.push(client);
      for (const t of listed.tools) {
        let name = safeName(t.name);
        if (taken.has(name)) name = safeName(`${s.name}__${t.name}`);
        taken.add(name);
        tools.push(wrap(client, s.name, t, name));
      }
    } catch (e) {
      log(`MCP server ${s.name} unreachable: ${(e as Error).message}`);
      problems.push(`MCP server '${s.name}' could not be reached: ${(e as Error).message}`);
      void client.close().catch(() => {});
    }
  }
  return { tools, problems, close: async () => void (await Promise.allSettled(clients.map((c) => c.close()))) };
}

type Listed = { name: string; description?: string; inputSchema: Record<string, unknown> };

function wrap(client: Client, server: string, t: Listed, name: string): Tool {
  return {
    name,
    description: t.description ?? `Tool ${t.name} of MCP server ${server}.`,
    parameters: t.inputSchema?.type === "object" ? t.inputSchema : { type: "object", properties: {} },
    kind: "other",
    writes: false,
    title: (a) => (typeof a.action === "string" ? `${t.name}: ${a.action}` : t.name),
    async run(args, ctx) {
      const result = await client.callTool({ name: t.name, arguments: args }, undefined, {
        signal: ctx.signal,
        timeout: CALL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
      });
      const content = Array.isArray(result.content) ? result.content : [];
      const text = content
        .map((c) =>
          c && typeof c === "object" && (c as { type?: string }).type === "text"
            ? String((c as { text?: unknown }).text ?? "")
            : JSON.stringify(c),
        )
        .join("\n");
      return { text: text || "(no content)", failed: result.isError === true };
    },
  };
}
