// The `scripted` provider: a deterministic ACP v1 agent for tests. The relay spawns
// it (`node --import tsx src/providers/scripted/agent.ts`) and talks ACP over
// stdin/stdout; the prompt text is a little script (see script.ts) so tests can
// make a turn reply, stream, sleep, hang, fail, ask the user, call relay_tool and
// start background tasks — all without a real model. Logs go to stderr only.

import { randomUUID } from "node:crypto";
import type * as acp from "@agentclientprotocol/sdk";
import { PROTOCOL_VERSION, RequestError, serveAcp } from "../agent-acp.ts";
import { RelayClient, type RelayServer } from "./relay-client.ts";
import { runTurn, type ScriptSession, type TurnIo } from "./script.ts";
import { errorMessage, log } from "./util.ts";

const DEFAULT_MODEL = "scripted-1";
const RELAY_SERVER_NAME = "relay";

type OarMeta = { sessionId?: unknown; model?: unknown; effort?: unknown; mode?: unknown };

type Session = ScriptSession & {
  effort?: string;
  mode?: string;
  /** Abort controllers of the running prompt(s); session/cancel aborts them. */
  running: Set<AbortController>;
};

const sessions = new Map<string, Session>();
/** What the client offered in initialize: `/write` goes through its fs/write_text_file then. */
let clientWrites = false;

function oarMeta(meta: { [key: string]: unknown } | null | undefined): OarMeta {
  const oar = meta?.oar;
  return oar && typeof oar === "object" ? (oar as OarMeta) : {};
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

function relayServer(mcpServers: acp.McpServer[] | undefined): RelayServer | undefined {
  for (const s of mcpServers ?? []) {
    if (s.name === RELAY_SERVER_NAME && "type" in s && s.type === "http") {
      return { url: s.url, headers: (s.headers ?? []).map((h) => ({ name: h.name, value: h.value })) };
    }
  }
  return undefined;
}

function openSession(
  id: string,
  params: { cwd: string; mcpServers: acp.McpServer[]; _meta?: { [key: string]: unknown } | null },
): Session {
  const previous = sessions.get(id);
  if (previous) {
    for (const c of previous.running) c.abort();
    void previous.relay?.reset();
  }
  const meta = oarMeta(params._meta);
  const server = relayServer(params.mcpServers);
  const session: Session = {
    id,
    cwd: params.cwd,
    model: str(meta.model) ?? DEFAULT_MODEL,
    effort: str(meta.effort),
    mode: str(meta.mode),
    relay: server ? new RelayClient(server) : undefined,
    costUsd: previous?.costUsd ?? 0,
    running: new Set(),
  };
  sessions.set(id, session);
  log(`session ${id} open (model ${session.model}, relay ${server ? server.url : "none"})`);
  return session;
}

type PromptParams = { sessionId: string; prompt?: acp.ContentBlock[]; _meta?: { [key: string]: unknown } | null };

const done = serveAcp(
  {
    requests: {
      initialize: (params: { protocolVersion?: number; clientCapabilities?: { fs?: { writeTextFile?: unknown } } }) => {
        clientWrites = params.clientCapabilities?.fs?.writeTextFile === true;
        return {
          protocolVersion: params.protocolVersion ?? PROTOCOL_VERSION,
          agentCapabilities: { loadSession: true, mcpCapabilities: { http: true } },
          agentInfo: { name: "oar-scripted", version: "1.0.0" },
        };
      },
      "session/new": (params: acp.NewSessionRequest) => {
        const session = openSession(randomUUID(), params);
        return { sessionId: session.id };
      },
      "session/load": (params: acp.LoadSessionRequest) => {
        openSession(params.sessionId, params);
        return {};
      },
      // A worker may set the model the way CLIs take it (Copilot offline takes any id); the
      // prompt's own _meta still wins, as before.
      "session/set_model": (params: { sessionId: string; modelId: string }) => {
        const session = sessions.get(params.sessionId);
        if (!session) throw RequestError.sessionNotFound(params.sessionId);
        session.model = params.modelId;
        return {};
      },
      "session/prompt": async (params: PromptParams, client, signal) => {
        const session = sessions.get(params.sessionId);
        if (!session) throw RequestError.sessionNotFound(params.sessionId);
        const meta = oarMeta(params._meta);
        session.model = str(meta.model) ?? session.model;
        session.effort = str(meta.effort) ?? session.effort;
        session.mode = str(meta.mode) ?? session.mode;

        const script = (params.prompt ?? []).flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");

        const controller = new AbortController();
        // A protocol-level $/cancel_request of this prompt cancels the turn as well.
        const onRequestAbort = () => controller.abort();
        signal.addEventListener("abort", onRequestAbort, { once: true });
        session.running.add(controller);

        const io: TurnIo = {
          sendText: (text) =>
            client.notify("session/update", {
              sessionId: session.id,
              update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
            }),
          request: (method, reqParams, cancel) =>
            client.request(method, reqParams, { cancellationSignal: cancel, stopWaitingOnCancel: true }),
          notify: (method, notifyParams) => client.notify(method, notifyParams),
          update: (update) => client.notify("session/update", { sessionId: session.id, update }),
          clientWrites,
        };

        try {
          const { stopReason, usage } = await runTurn(session, script, io, controller.signal);
          return { stopReason, ...(usage ? { usage } : {}) };
        } finally {
          session.running.delete(controller);
          signal.removeEventListener("abort", onRequestAbort);
        }
      },
    },
    notifications: {
      "session/cancel": (params: { sessionId?: string }) => {
        const session = sessions.get(params.sessionId ?? "");
        if (!session) return;
        for (const c of session.running) c.abort();
      },
    },
  },
  process.stdin,
  process.stdout,
);

// stdin closed (or the stream broke): the relay is gone. Background /task shells are
// not killed, but the agent does not stay alive for them.
process.stdin.on("end", () => process.exit(0));
void done.then(() => process.exit(0));
// The relay closed our stdout (EPIPE): nobody is listening any more.
process.stdout.on("error", (e) => {
  log(`connection closed: ${errorMessage(e)}`);
  process.exit(0);
});
