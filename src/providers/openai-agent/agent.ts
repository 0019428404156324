// OAR's own coding agent for DeepSeek and any OpenAI-compatible endpoint: a standalone ACP agent
// process (like scripted/agent.ts) whose turns run the tool loop in turn.ts on the official
// `openai` SDK. The relay starts it with the environment of config.ts; logs go to stderr only.

import { randomUUID } from "node:crypto";
import type * as acp from "@agentclientprotocol/sdk";
import { PROTOCOL_VERSION, RequestError, serveAcp, type Peer } from "../agent-acp.ts";
import { TurnFailed } from "./api-errors.ts";
import { loadConfig } from "./config.ts";
import { ModelClient } from "./model-client.ts";
import { systemPrompt } from "./prompt.ts";
import { isMode, MODES, type AgentSession } from "./session.ts";
import { BUILTIN_TOOLS } from "./tools/index.ts";
import { connectMcp } from "./tools/mcp.ts";
import { runTurn, toolsFor } from "./turn.ts";

const cfg = loadConfig();
const client = new ModelClient(cfg);
const sessions = new Map<string, AgentSession>();
const log = (s: string) => process.stderr.write(`[oar-openai-agent] ${s}\n`);

type OarMeta = { model?: unknown; effort?: unknown; mode?: unknown; autoCompactWindow?: unknown };
const oarMeta = (meta: { [k: string]: unknown } | null | undefined): OarMeta => {
  const oar = meta?.oar;
  return oar && typeof oar === "object" ? (oar as OarMeta) : {};
};
const nonEmpty = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
const windowFrom = (v: unknown): "auto" | number | undefined =>
  v === "auto" ? "auto" : typeof v === "number" && v >= 0 ? v : undefined;

/** Settings the relay sends with session/new or a prompt (`_meta.oar`). */
function applyMeta(s: AgentSession, meta: OarMeta): void {
  s.model = nonEmpty(meta.model) ?? s.model;
  s.effort = nonEmpty(meta.effort) ?? s.effort;
  if (isMode(meta.mode)) s.mode = meta.mode;
  s.window = windowFrom(meta.autoCompactWindow) ?? s.window;
}

function modelState(s: AgentSession) {
  return { availableModels: s.models.map((id) => ({ modelId: id, name: id })), currentModelId: s.model };
}

const EFFORTS = ["low", "medium", "high"];

/** What the relay can set (session-config.ts reads it): the model (when the endpoint listed
 * models) and, where the API takes reasoning_effort, the effort as a thought level. */
function configOptions(s: AgentSession): acp.SessionConfigOption[] {
  const out: acp.SessionConfigOption[] = [];
  // Only the endpoint's own list: the relay takes these ids as the provider's model list.
  if (s.models.length)
    out.push({
      type: "select",
      id: "model",
      name: "Model",
      category: "model",
      currentValue: s.model,
      options: s.models.map((id) => ({ value: id, name: id })),
    });
  if (cfg.takesEffort)
    out.push({
      type: "select",
      id: "effort",
      name: "Reasoning effort",
      category: "thought_level",
      currentValue: s.effort ?? "medium",
      options: EFFORTS.map((e) => ({ value: e, name: e })),
    });
  return out;
}

type PromptParams = { sessionId: string; prompt?: acp.ContentBlock[]; _meta?: { [k: string]: unknown } | null };

/** The client offered `fs.writeTextFile`: edits and writes go through it (the relay checks claims). */
let clientWrites = false;

const requests = {
  initialize: (params: { protocolVersion?: number; clientCapabilities?: { fs?: { writeTextFile?: unknown } } }) => {
    clientWrites = params.clientCapabilities?.fs?.writeTextFile === true;
    return {
      protocolVersion: params.protocolVersion ?? PROTOCOL_VERSION,
      agentCapabilities: { loadSession: false, mcpCapabilities: { http: true }, promptCapabilities: {} },
      agentInfo: { name: "oar-openai-agent", title: cfg.name, version: "1.0.0" },
      authMethods: [],
    };
  },
  "session/new": async (params: acp.NewSessionRequest) => {
    const meta = oarMeta(params._meta);
    const models = await client.listModels().catch((e) => {
      log(`models list failed: ${(e as Error).message}`);
      return [] as string[];
    });
    const s: AgentSession = {
      id: randomUUID(),
      cwd: params.cwd,
      model: cfg.defaultModel || models[0] || "default",
      mode: "agent",
      window: "auto",
      models,
      history: [],
      contextTokens: 0,
      alwaysAllowed: new Set(),
      costUsd: 0,
      mcp: null,
      running: new Set(),
    };
    applyMeta(s, meta);
    s.mcp = await connectMcp(params.mcpServers, new Set(BUILTIN_TOOLS.map((t) => t.name)), log);
    s.history.push({ role: "system", content: systemPrompt(s, cfg, s.mcp.problems) });
    sessions.set(s.id, s);
    log(`session ${s.id} on ${cfg.name} ${s.model}, ${s.mcp.tools.length} MCP tools`);
    return {
      sessionId: s.id,
      modes: { currentModeId: s.mode, availableModes: MODES.map((m) => ({ ...m })) },
      configOptions: configOptions(s),
      // The models field real CLIs send (not in the 2.4 schema): kept for clients that read it.
      ...(s.models.length ? { models: modelState(s) } : {}),
    } as acp.NewSessionResponse;
  },
  "session/set_mode": (params: acp.SetSessionModeRequest) => {
    const s = sessions.get(params.sessionId);
    if (!s) throw RequestError.resourceNotFound(params.sessionId);
    if (!isMode(params.modeId))
      throw RequestError.invalidParams(undefined, `Unknown mode '${params.modeId}'; modes: agent, ask, plan.`);
    s.mode = params.modeId;
    return {};
  },
  "session/set_config_option": (params: acp.SetSessionConfigOptionRequest) => {
    const s = sessions.get(params.sessionId);
    if (!s) throw RequestError.resourceNotFound(params.sessionId);
    const value = (params as { value?: unknown }).value;
    if (params.configId === "model" && typeof value === "string" && value) s.model = value;
    else if (params.configId === "effort" && typeof value === "string" && EFFORTS.includes(value)) s.effort = value;
    else if (params.configId === "auto_compact_window" && windowFrom(value) !== undefined)
      s.window = windowFrom(value)!;
    else throw RequestError.invalidParams(undefined, `Unknown option '${params.configId}' or value.`);
    return { configOptions: configOptions(s) };
  },
  "session/set_model": (params: { sessionId: string; modelId: string }) => {
    const s = sessions.get(params.sessionId);
    if (!s) throw RequestError.resourceNotFound(params.sessionId);
    if (typeof params.modelId !== "string" || !params.modelId)
      throw RequestError.invalidParams(undefined, "modelId is required.");
    s.model = params.modelId;
    return {};
  },
  "session/prompt": async (params: PromptParams, peer: Peer, signal: AbortSignal) => {
    const s = sessions.get(params.sessionId);
    if (!s) throw RequestError.resourceNotFound(params.sessionId);
    applyMeta(s, oarMeta(params._meta));
    // "default": a session created before the endpoint's list was known runs on its first model.
    if (s.model === "default" && s.models.length) s.model = s.models[0];
    const text = (params.prompt ?? [])
      .flatMap((b) => (b.type === "text" ? [b.text] : b.type === "resource_link" ? [`[file: ${b.uri}]`] : []))
      .join("\n");
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    s.running.add(controller);
    try {
      const { stopReason, usage } = await runTurn(
        s,
        text,
        {
          cfg,
          client,
          tools: toolsFor(s, BUILTIN_TOOLS),
          io: {
            update: (update) => peer.notify("session/update", { sessionId: s.id, update }),
            notify: (method, p) => peer.notify(method, p),
            requestPermission: (p, cancel) =>
              peer.request("session/request_permission", p, {
                cancellationSignal: cancel,
                stopWaitingOnCancel: true,
              }) as Promise<acp.RequestPermissionResponse>,
            ...(clientWrites
              ? {
                  writeText: (path: string, content: string, cancel: AbortSignal) =>
                    peer.request(
                      "fs/write_text_file",
                      { sessionId: s.id, path, content },
                      { cancellationSignal: cancel, stopWaitingOnCancel: true },
                    ),
                }
              : {}),
          },
        },
        controller.signal,
      );
      // ACP's usage_update carries the session's cumulative cost; the relay takes each turn's share.
      if (usage.costUsd !== null) s.costUsd = Math.round((s.costUsd + usage.costUsd) * 1e6) / 1e6;
      const oarUsage = {
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        cachedTokens: usage.cachedTokens,
        ...(usage.costUsd !== null ? { costUsd: usage.costUsd } : {}),
      };
      await peer
        .notify("session/update", {
          sessionId: s.id,
          update: {
            sessionUpdate: "usage_update",
            used: s.contextTokens,
            size: s.window === "auto" ? (cfg.autoWindow ?? 0) : s.window,
            ...(usage.costUsd !== null ? { cost: { amount: s.costUsd, currency: "USD" } } : {}),
            _meta: { oar: { usage: oarUsage, model: s.model } },
          },
        })
        .catch(() => {});
      return {
        stopReason,
        usage: {
          totalTokens: usage.inputTokens + usage.outputTokens,
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          cachedReadTokens: usage.cachedTokens,
        },
        _meta: { oar: { usage: oarUsage, model: s.model } },
      } as acp.PromptResponse;
    } catch (e) {
      // Not -32000 (which the relay reads as "not signed in"): the words are the owner's to read as they are.
      if (e instanceof TurnFailed) throw new RequestError(-32603, e.message, { oar: { worded: true, kind: e.kind } });
      throw e;
    } finally {
      s.running.delete(controller);
      signal.removeEventListener("abort", onAbort);
    }
  },
};

const done = serveAcp(
  {
    requests,
    notifications: {
      "session/cancel": (params: { sessionId?: string }) => {
        for (const c of sessions.get(params.sessionId ?? "")?.running ?? []) c.abort();
      },
    },
  },
  process.stdin,
  process.stdout,
);
const exit = () => {
  for (const s of sessions.values()) void s.mcp?.close();
  process.exit(0);
};
process.stdin.on("end", exit);
void done.then(exit);
// The relay closed our stdout (EPIPE): nobody is listening any more.
process.stdout.on("error", exit);
