// Drives our own DeepSeek / OpenAI-compatible agent process (src/providers/openai-agent/agent.ts)
// over ACP as the relay does, recording every session/update and task notification, and
// answering permission requests as the test says. For rules the relay does not show yet.
import { spawn, type ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { openAiAgentLaunch } from "../../src/providers/openai-agent/provider.ts";

export interface Drive {
  conn: acp.ClientConnection;
  child: ChildProcess;
  updates: any[];
  tasks: any[];
  taskOutput: Map<string, string>;
  permissions: any[];
  /** How the next permission requests are answered (an optionId, or "cancel"). */
  answer: (req: any) => string;
  stderr: string;
  newSession(cwd: string, meta?: Record<string, unknown>, mcpServers?: acp.McpServer[]): Promise<any>;
  prompt(sessionId: string, text: string, meta?: Record<string, unknown>): Promise<any>;
  close(): void;
}

export function startAgent(provider: "deepseek" | "openai-compatible", settings: Record<string, unknown>): Drive {
  const spec = openAiAgentLaunch(provider, settings);
  const child = spawn(spec.command, spec.args, {
    env: { ...process.env, ...spec.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const d = {
    updates: [],
    tasks: [],
    taskOutput: new Map(),
    permissions: [],
    answer: () => "allow_once",
    stderr: "",
    child,
  } as unknown as Drive;
  child.stderr!.on("data", (b) => (d.stderr += b));
  const obj = (p: unknown) => (p && typeof p === "object" ? (p as Record<string, unknown>) : {});
  const app = acp
    .client({ name: "test" })
    .onNotification("session/update", ({ params }) => void d.updates.push(params.update))
    .onNotification("_oar/task", obj, ({ params }) => void d.tasks.push(params))
    .onNotification("_oar/task_output", obj, ({ params }) => {
      const id = String(params.taskId);
      d.taskOutput.set(id, (d.taskOutput.get(id) ?? "") + String(params.chunk));
    })
    .onRequest("session/request_permission", async ({ params }) => {
      d.permissions.push(params);
      const pick = d.answer(params);
      return pick === "cancel"
        ? { outcome: { outcome: "cancelled" } }
        : { outcome: { outcome: "selected", optionId: pick } };
    });
  d.conn = app.connect(
    acp.ndJsonStream(
      Writable.toWeb(child.stdin!) as unknown as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>,
    ),
  );
  let initialized: Promise<unknown> | null = null;
  const init = () =>
    (initialized ??= d.conn.agent.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    }));
  d.newSession = async (cwd, meta = {}, mcpServers = []) => {
    await init();
    return d.conn.agent.request("session/new", { cwd, mcpServers, _meta: { oar: meta } });
  };
  d.prompt = (sessionId, text, meta = {}) =>
    d.conn.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }], _meta: { oar: meta } });
  d.close = () => {
    d.conn.close();
    child.kill("SIGKILL");
  };
  return d;
}

/** The tool_call entries with their updates merged, in order. */
export function toolCalls(updates: any[]): any[] {
  const byId = new Map<string, any>();
  for (const u of updates) {
    if (u.sessionUpdate === "tool_call") byId.set(u.toolCallId, { ...u });
    else if (u.sessionUpdate === "tool_call_update")
      Object.assign(
        byId.get(u.toolCallId) ?? {},
        Object.fromEntries(Object.entries(u).filter(([, v]) => v !== undefined && v !== null)),
      );
  }
  return [...byId.values()];
}

export const textOf = (updates: any[], kind = "agent_message_chunk") =>
  updates
    .filter((u) => u.sessionUpdate === kind)
    .map((u) => u.content.text)
    .join("");
