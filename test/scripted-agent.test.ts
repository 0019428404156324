// Drives the real `scripted` agent process over ACP (stdin/stdout) with the SDK's
// client side, the way the relay does, and checks every script directive.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const AGENT = "src/providers/scripted/agent.ts";

type TaskEvent = {
  sessionId: string;
  taskId: string;
  type: string;
  description: string;
  status: string;
  exitCode?: number | null;
};
type TaskOutput = { sessionId: string; taskId: string; chunk: string };
type AskUser = { sessionId: string; question: string; options: string[] };

type Agent = {
  child: ChildProcess;
  conn: acp.ClientConnection;
  chunks: Map<string, string[]>;
  tasks: TaskEvent[];
  output: TaskOutput[];
  asks: AskUser[];
  /** Task notifications in arrival order: "<taskId> <status>" or "<taskId> output". */
  taskLog: string[];
  askHandler: (p: AskUser, signal: AbortSignal) => Promise<{ choice?: string; answer?: string }>;
};

function spawnAgent(): Agent {
  const child = spawn(process.execPath, ["--import", "tsx", AGENT], {
    cwd: ROOT,
    // The agent logs to stderr; show it with OAR_TEST_DEBUG=1.
    stdio: ["pipe", "pipe", process.env.OAR_TEST_DEBUG ? "inherit" : "ignore"],
  });
  const agent = {
    child,
    chunks: new Map<string, string[]>(),
    tasks: [] as TaskEvent[],
    output: [] as TaskOutput[],
    asks: [] as AskUser[],
    taskLog: [] as string[],
    askHandler: async () => ({ choice: "default" }),
  } as Omit<Agent, "conn"> as Agent;
  const app = acp
    .client({ name: "scripted-agent-test" })
    .onNotification("session/update", ({ params }) => {
      const { sessionId, update } = params;
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
        const list = agent.chunks.get(sessionId) ?? [];
        list.push(update.content.text);
        agent.chunks.set(sessionId, list);
      }
    })
    .onNotification(
      "_oar/task",
      (p) => p as TaskEvent,
      ({ params }) => {
        agent.tasks.push(params);
        agent.taskLog.push(`${params.taskId} ${params.status}`);
      },
    )
    .onNotification(
      "_oar/task_output",
      (p) => p as TaskOutput,
      ({ params }) => {
        agent.output.push(params);
        agent.taskLog.push(`${params.taskId} output`);
      },
    )
    .onRequest(
      "_oar/ask_user",
      (p) => p as AskUser,
      ({ params, signal }) => {
        agent.asks.push(params);
        return agent.askHandler(params, signal);
      },
    );
  agent.conn = app.connect(
    acp.ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>,
    ),
  );
  return agent;
}

async function initialize(agent: Agent): Promise<acp.InitializeResponse> {
  return agent.conn.agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
}

async function newSession(agent: Agent, extra: Partial<acp.NewSessionRequest> = {}): Promise<string> {
  const res = await agent.conn.agent.request("session/new", { cwd: ROOT, mcpServers: [], ...extra });
  return res.sessionId;
}

/** Sends one prompt; resolves with the stop reason and the turn's chunks. */
async function prompt(
  agent: Agent,
  sessionId: string,
  text: string,
  meta?: Record<string, unknown>,
): Promise<{ stopReason: string; chunks: string[]; reply: string }> {
  agent.chunks.set(sessionId, []);
  const res = await agent.conn.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text }],
    ...(meta ? { _meta: meta } : {}),
  });
  const chunks = agent.chunks.get(sessionId) ?? [];
  return { stopReason: res.stopReason, chunks, reply: chunks.join("") };
}

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

// ---- a tiny relay MCP server (stateless Streamable HTTP) ----------------------

type Relay = { url: string; server: Server; authorizations: (string | undefined)[] };

async function startRelay(toolName: string): Promise<Relay> {
  const authorizations: (string | undefined)[] = [];
  const makeServer = () => {
    const mcp = new McpServer({ name: "test-relay", version: "1.0.0" });
    mcp.registerTool(
      toolName,
      {
        description: "test relay tool",
        inputSchema: { action: z.string(), text: z.string().optional() },
      },
      async (args, extra) => {
        if (args.action === "wait") {
          // Waits until the call is cancelled (or a safety timeout).
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, 5000);
            t.unref();
            extra.signal.addEventListener("abort", () => resolve(), { once: true });
          });
        }
        const body = { ok: true, tool: toolName, action: args.action, text: args.text ?? null };
        return { content: [{ type: "text", text: JSON.stringify(body, null, 2) }] };
      },
    );
    return mcp;
  };
  const server = createServer(async (req, res) => {
    if (req.method === "POST") authorizations.push(req.headers.authorization);
    const mcp = makeServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    try {
      await mcp.connect(transport);
      await transport.handleRequest(req, res);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, server, authorizations };
}

function relayServerEntry(relay: Relay): acp.McpServer {
  return {
    type: "http",
    name: "relay",
    url: relay.url,
    headers: [{ name: "Authorization", value: "Bearer test-token" }],
  };
}

// ---- tests -------------------------------------------------------------------

let agent: Agent;
let relay: Relay;
let legacyRelay: Relay;

before(async () => {
  agent = spawnAgent();
  relay = await startRelay("relay_tool");
  legacyRelay = await startRelay("remote_relay");
});

after(async () => {
  agent.conn.close();
  agent.child.stdin!.end();
  if (agent.child.exitCode === null) await once(agent.child, "exit");
  for (const r of [relay, legacyRelay]) {
    r.server.closeAllConnections();
    r.server.close();
  }
});

test("initialize advertises http MCP and the agent name", async () => {
  const res = await initialize(agent);
  assert.equal(res.protocolVersion, acp.PROTOCOL_VERSION);
  assert.equal(res.agentCapabilities?.mcpCapabilities?.http, true);
  assert.equal(res.agentInfo?.name, "oar-scripted");
});

test("plain lines are echoed at the end of the turn", async () => {
  const s = await newSession(agent);
  const r = await prompt(agent, s, "hello\r\n\nworld");
  assert.equal(r.stopReason, "end_turn");
  assert.deepEqual(r.chunks, ["echo: hello\nworld"]);
});

test("/reply lines come in order, the echo last", async () => {
  const s = await newSession(agent);
  const r = await prompt(agent, s, "first text\n/reply one\n/reply two words\nsecond text\n/bogus x");
  assert.deepEqual(r.chunks, ["one", "\ntwo words", "\nunknown directive: /bogus", "\necho: first text\nsecond text"]);
  assert.equal(r.reply, "one\ntwo words\nunknown directive: /bogus\necho: first text\nsecond text");
});

test("text blocks are joined by newlines", async () => {
  const s = await newSession(agent);
  agent.chunks.set(s, []);
  await agent.conn.agent.request("session/prompt", {
    sessionId: s,
    prompt: [
      { type: "text", text: "/reply a" },
      { type: "text", text: "/reply b" },
    ],
  });
  assert.deepEqual(agent.chunks.get(s), ["a", "\nb"]);
});

test("/stream sends each chunk as its own update", async () => {
  const s = await newSession(agent);
  const r = await prompt(agent, s, "/stream 3 2");
  assert.deepEqual(r.chunks, ["chunk 1", "\nchunk 2", "\nchunk 3"]);
});

test("/sleep waits, then the turn goes on", async () => {
  const s = await newSession(agent);
  const t0 = performance.now();
  const r = await prompt(agent, s, "/sleep 30\n/reply done");
  assert.ok(performance.now() - t0 >= 25);
  assert.equal(r.reply, "done");
});

test("/hang ends with cancelled after session/cancel", async () => {
  const s = await newSession(agent);
  agent.chunks.set(s, []);
  const pending = agent.conn.agent.request("session/prompt", {
    sessionId: s,
    prompt: [{ type: "text", text: "/reply before\n/hang\n/reply after\nnot echoed" }],
  });
  await waitFor("first chunk", () => agent.chunks.get(s)?.length === 1);
  await agent.conn.agent.notify("session/cancel", { sessionId: s });
  const res = await pending;
  assert.equal(res.stopReason, "cancelled");
  assert.deepEqual(agent.chunks.get(s), ["before"]);
  // The session stays usable.
  const r = await prompt(agent, s, "/reply again");
  assert.equal(r.reply, "again");
});

test("/sleep and /stream are cancellable too", async () => {
  const s = await newSession(agent);
  agent.chunks.set(s, []);
  const pending = agent.conn.agent.request("session/prompt", {
    sessionId: s,
    prompt: [{ type: "text", text: "/stream 2 1\n/sleep 60000\n/reply after" }],
  });
  await waitFor("two chunks", () => agent.chunks.get(s)?.length === 2);
  await agent.conn.agent.notify("session/cancel", { sessionId: s });
  assert.equal((await pending).stopReason, "cancelled");
  assert.deepEqual(agent.chunks.get(s), ["chunk 1", "\nchunk 2"]);
});

test("/error answers a JSON-RPC error with exactly the text", async () => {
  const s = await newSession(agent);
  await assert.rejects(prompt(agent, s, "/reply partial\n/error the thing broke\n/reply never"), (e: unknown) => {
    assert.ok(e instanceof acp.RequestError);
    assert.equal(e.message, "the thing broke");
    assert.equal(e.code, -32000);
    return true;
  });
  assert.deepEqual(agent.chunks.get(s), ["partial"]);
});

test("/model follows session/new _meta and prompt _meta", async () => {
  const plain = await newSession(agent);
  assert.equal((await prompt(agent, plain, "/model")).reply, "scripted-1");

  const s = await newSession(agent, {
    _meta: { oar: { sessionId: "oar-1", model: "big-model", effort: "high", mode: "default" } },
  });
  assert.equal((await prompt(agent, s, "/model")).reply, "big-model");
  assert.equal((await prompt(agent, s, "/model", { oar: { model: "small-model" } })).reply, "small-model");
  // The switch sticks for later turns.
  assert.equal((await prompt(agent, s, "/model")).reply, "small-model");
});

test("session/load re-creates a session under the given id", async () => {
  const res = await agent.conn.agent.request("session/load", {
    sessionId: "reattached-1",
    cwd: ROOT,
    mcpServers: [],
    _meta: { oar: { model: "loaded-model" } },
  });
  assert.deepEqual(res, {});
  const r = await prompt(agent, "reattached-1", "/model\nhi");
  assert.equal(r.reply, "loaded-model\necho: hi");
});

test("a prompt for an unknown session is refused", async () => {
  await assert.rejects(prompt(agent, "no-such-session", "hi"), (e: unknown) => {
    assert.ok(e instanceof acp.RequestError);
    assert.equal(e.code, -32002);
    return true;
  });
});

test("/ask_user round-trips through the client's _oar/ask_user handler", async () => {
  const s = await newSession(agent);
  agent.askHandler = async (p) => ({ choice: `picked ${p.options[1]}` });
  let r = await prompt(agent, s, "/ask_user Which one? | red | blue");
  assert.deepEqual(agent.asks.at(-1), { sessionId: s, question: "Which one?", options: ["red", "blue"] });
  assert.equal(r.reply, "answer: picked blue");

  agent.askHandler = async () => ({ answer: "free text" });
  r = await prompt(agent, s, "/ask_user Anything?");
  assert.deepEqual(agent.asks.at(-1), { sessionId: s, question: "Anything?", options: [] });
  assert.equal(r.reply, "answer: free text");

  agent.askHandler = async () => ({});
  r = await prompt(agent, s, "/ask_user Nothing?|");
  assert.equal(r.reply, "answer: ");
});

test("/ask_user is cancellable", async () => {
  const s = await newSession(agent);
  agent.askHandler = (_p, signal) =>
    new Promise((resolve) => signal.addEventListener("abort", () => resolve({ choice: "late" }), { once: true }));
  const asked = agent.asks.length;
  agent.chunks.set(s, []);
  const pending = agent.conn.agent.request("session/prompt", {
    sessionId: s,
    prompt: [{ type: "text", text: "/ask_user Wait? | yes\n/reply after" }],
  });
  await waitFor("the question", () => agent.asks.length > asked);
  await agent.conn.agent.notify("session/cancel", { sessionId: s });
  assert.equal((await pending).stopReason, "cancelled");
  assert.deepEqual(agent.chunks.get(s), []);
});

test("/task reports running, output and completed; a failing shell reports failed", async () => {
  const s = await newSession(agent);
  const r = await prompt(agent, s, "/task build echo out; echo err >&2; pwd\n/task broken exit 7");
  const ids = [...r.reply.matchAll(/task: (\S+) started/g)].map((m) => m[1]);
  assert.equal(ids.length, 2);
  assert.match(r.reply, /^task: \S+ started\ntask: \S+ started$/);
  const [ok, bad] = ids;

  const done = (id: string) => agent.tasks.find((t) => t.taskId === id && t.status !== "running");
  const okEnd = await waitFor("build to finish", () => done(ok));
  const badEnd = await waitFor("broken to finish", () => done(bad));

  const okEvents = agent.tasks.filter((t) => t.taskId === ok);
  // The running notice also carries the task's process group, so the relay can end it on Kill session.
  const { pgid, ...running } = okEvents[0] as { pgid?: unknown };
  assert.ok(Number.isInteger(pgid) && (pgid as number) > 0, `pgid: ${pgid}`);
  assert.deepEqual(running, { sessionId: s, taskId: ok, type: "local_bash", description: "build", status: "running" });
  assert.deepEqual(okEnd, {
    sessionId: s,
    taskId: ok,
    type: "local_bash",
    description: "build",
    status: "completed",
    exitCode: 0,
  });
  const out = agent.output
    .filter((o) => o.taskId === ok)
    .map((o) => o.chunk)
    .join("");
  assert.ok(out.includes("out\n") && out.includes("err\n"), out);
  assert.ok(out.includes(ROOT.replace(/\/$/, "")), "shell runs in the session cwd");
  assert.ok(agent.output.filter((o) => o.taskId === ok).every((o) => o.sessionId === s));
  // "running" comes first, all output before the final status.
  const okLog = agent.taskLog.filter((l) => l.startsWith(`${ok} `));
  assert.equal(okLog[0], `${ok} running`);
  assert.equal(okLog.at(-1), `${ok} completed`);
  assert.ok(okLog.slice(1, -1).length >= 1 && okLog.slice(1, -1).every((l) => l === `${ok} output`), String(okLog));

  assert.equal(badEnd.status, "failed");
  assert.equal(badEnd.exitCode, 7);
  assert.equal(badEnd.description, "broken");
});

test("/task keeps running after the turn ends", async () => {
  const s = await newSession(agent);
  const r = await prompt(agent, s, "/task slow sleep 0.05; echo late");
  const id = /task: (\S+) started/.exec(r.reply)![1];
  assert.equal(
    agent.tasks.find((t) => t.taskId === id && t.status !== "running"),
    undefined,
  );
  const end = await waitFor("slow to finish", () => agent.tasks.find((t) => t.taskId === id && t.status !== "running"));
  assert.equal(end.status, "completed");
  assert.equal(
    agent.output
      .filter((o) => o.taskId === id)
      .map((o) => o.chunk)
      .join(""),
    "late\n",
  );
});

test("/subagent reports running, then completed", async () => {
  const s = await newSession(agent);
  const r = await prompt(agent, s, "/subagent helper 10");
  const id = /^subagent: (\S+) started$/.exec(r.reply)![1];
  assert.deepEqual(
    agent.tasks.find((t) => t.taskId === id),
    {
      sessionId: s,
      taskId: id,
      type: "subagent",
      description: "helper",
      status: "running",
    },
  );
  const end = await waitFor("subagent end", () => agent.tasks.find((t) => t.taskId === id && t.status !== "running"));
  assert.deepEqual(end, {
    sessionId: s,
    taskId: id,
    type: "subagent",
    description: "helper",
    status: "completed",
    exitCode: 0,
  });
});

test("/tool calls relay_tool on the session's relay MCP server with its headers", async () => {
  const s = await newSession(agent, { mcpServers: [relayServerEntry(relay)] });
  const r = await prompt(agent, s, '/tool {"action":"echo","text":"hi"}\n/tool {"action":"second"}\n/tool {broken');
  const lines = r.reply.split("\n");
  assert.equal(lines[0], 'tool: {"ok":true,"tool":"relay_tool","action":"echo","text":"hi"}');
  assert.equal(lines[1], 'tool: {"ok":true,"tool":"relay_tool","action":"second","text":null}');
  assert.match(lines[2], /^tool: \{"ok":false,"error":"invalid JSON: .*"\}$/);
  assert.ok(relay.authorizations.length > 0);
  assert.ok(
    relay.authorizations.every((a) => a === "Bearer test-token"),
    String(relay.authorizations),
  );
});

test("/tool falls back to remote_relay when relay_tool is not offered", async () => {
  const s = await newSession(agent, { mcpServers: [relayServerEntry(legacyRelay)] });
  const r = await prompt(agent, s, '/tool {"action":"old"}');
  assert.equal(r.reply, 'tool: {"ok":true,"tool":"remote_relay","action":"old","text":null}');
});

test("/tool is cancellable", async () => {
  const s = await newSession(agent, { mcpServers: [relayServerEntry(relay)] });
  agent.chunks.set(s, []);
  const pending = agent.conn.agent.request("session/prompt", {
    sessionId: s,
    prompt: [{ type: "text", text: '/reply go\n/tool {"action":"wait"}\n/reply after' }],
  });
  await waitFor("first chunk", () => agent.chunks.get(s)?.length === 1);
  await new Promise((r) => setTimeout(r, 50)); // let the call reach the server
  await agent.conn.agent.notify("session/cancel", { sessionId: s });
  assert.equal((await pending).stopReason, "cancelled");
  assert.deepEqual(agent.chunks.get(s), ["go"]);
});

test("/tool without a relay MCP server answers REMOTE_RELAY_DISABLED", async () => {
  const s = await newSession(agent);
  const r = await prompt(agent, s, '/tool {"action":"echo"}');
  assert.equal(
    r.reply,
    'tool: {"ok":false,"code":"REMOTE_RELAY_DISABLED","error":"relay_tool is not offered to this session."}',
  );
});

test("the agent exits when stdin closes, even with a /task still running", async () => {
  const own = spawnAgent();
  await initialize(own);
  const s = await newSession(own);
  await prompt(own, s, "/task long sleep 2");
  own.conn.close();
  own.child.stdin!.end();
  const [code] = (await once(own.child, "exit")) as [number | null];
  assert.equal(code, 0);
});
