// A protocol-faithful stand-in for the real agent CLIs (claude-agent-acp, copilot, grok) in
// tests: a real child process speaking ACP on stdio that advertises what the real CLI
// advertises at session/new (modes, models, configOptions; STACK.md), records the
// set_mode / set_model / set_config_option calls it receives, asks session/request_permission
// with the CLI's option order, sends tool calls, plans, thoughts and usage, and fails the way
// the CLIs fail (-32000 "Authentication required"). Tests put it on PATH under the CLI's name
// (fakeCliDir below), so the relay launches it exactly as it launches the real one.
//
// Profile: FAKE_ACP_PROFILE=claude|copilot|grok|qwen. Sign-in: FAKE_ACP_SIGNED_OUT=1 (claude: the
// "Not logged in" status; the others: session/new refused -32000). qwen: an agent that never
// connects relay_tool's MCP server, says so on stderr as Qwen Code does ("MCP server(s) failed
// to start: relay"), and answers Qwen's `qwen/control/workspace/mcp/reload` without connecting
// (`/reloads` counts the asks).
// Prompt lines: /state · /pid · /env NAME… · /permission TITLE · /permission-always TITLE ·
// /permission-edit PATH · /tool ·
// /relaytool · /usage IN OUT COST · /refused-reply · /fail auth|rate|other · /crash · /mcp ·
// /history · anything else echoes.
//
// Conversations: FAKE_ACP_HISTORY=DIR keeps each session's turns in DIR/<id>.json and
// advertises `loadSession`; session/load of a kept one sends its turns back as session/updates
// (as ACP agents do) and continues it, of an unknown one fails -32002. `/history` answers the
// prompts this session had before.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { randomUUID } from "node:crypto";

import { hash } from "./fake-acp-agent-hash.ts";
import * as acp from "@agentclientprotocol/sdk/unstable";

const profile = process.env.FAKE_ACP_PROFILE ?? "claude";
const signedOutAtStart = process.env.FAKE_ACP_SIGNED_OUT === "1";
// FAKE_ACP_SIGNED_OUT_FILE: signed out while that file exists (a login that goes away later).
const signedOut =
  signedOutAtStart || (!!process.env.FAKE_ACP_SIGNED_OUT_FILE && existsSync(process.env.FAKE_ACP_SIGNED_OUT_FILE));

// `claude-agent-acp --cli auth status --json`: the sign-in check the relay's probe runs.
if (process.argv.includes("--cli")) {
  process.stdout.write(`${JSON.stringify({ loggedIn: !signedOut, authMethod: signedOut ? "none" : "api_key" })}\n`);
  process.exit(signedOut ? 1 : 0);
}

interface State {
  mode: string | null;
  model: string | null;
  effort: string | null;
  calls: string[];
  mcpReady: boolean;
  cost: number;
}
const sessions = new Map<string, State>();

const historyDir = process.env.FAKE_ACP_HISTORY;
type Turn = { prompt: string; reply: string };
const historyFile = (id: string) => join(historyDir!, `${id.replace(/[^\w-]/g, "_")}.json`);
const historyOf = (id: string): Turn[] =>
  historyDir && existsSync(historyFile(id)) ? JSON.parse(readFileSync(historyFile(id), "utf8")) : [];
function remember(id: string, turn: Turn): void {
  if (!historyDir) return;
  mkdirSync(historyDir, { recursive: true });
  writeFileSync(historyFile(id), JSON.stringify([...historyOf(id), turn]));
}

const select = (id: string, category: string, current: string, values: [string, string][]) => ({
  id,
  name: id,
  category,
  type: "select",
  currentValue: current,
  options: values.map(([value, name]) => ({ value, name })),
});

function advertised(s: State): Record<string, unknown> {
  if (profile === "claude") {
    const modes: [string, string][] = [
      ["default", "Manual"],
      ["acceptEdits", "Accept edits"],
      ["plan", "Plan"],
      ["auto", "Auto"],
      ["bypassPermissions", "Bypass permissions"],
    ];
    return {
      modes: { currentModeId: s.mode, availableModes: modes.map(([id, name]) => ({ id, name })) },
      configOptions: [
        select("mode", "mode", s.mode!, modes),
        select("model", "model", s.model!, [
          ["default", "Default (recommended)"],
          ["opus", "Opus 5.5"],
          ["sonnet", "Sonnet 5.5"],
          ["haiku", "Haiku 5"],
        ]),
        select("effort", "thought_level", s.effort!, [
          ["default", "Default"],
          ["low", "Low"],
          ["medium", "Medium"],
          ["high", "High"],
          ["xhigh", "Xhigh"],
          ["max", "Max"],
        ]),
      ],
    };
  }
  if (profile === "qwen") {
    const modes: [string, string][] = [
      ["default", "Default"],
      ["plan", "Plan"],
      ["yolo", "YOLO"],
    ];
    return {
      modes: { currentModeId: s.mode, availableModes: modes.map(([id, name]) => ({ id, name })) },
      models: { currentModelId: s.model, availableModels: [{ modelId: "qwen-test", name: "Qwen test" }] },
    };
  }
  if (profile === "copilot") {
    const url = (m: string) => `https://agentclientprotocol.com/protocol/session-modes#${m}`;
    const modes: [string, string][] = [
      [url("agent"), "Agent"],
      [url("plan"), "Plan"],
      [url("autopilot"), "Autopilot"],
    ];
    return {
      modes: { currentModeId: s.mode, availableModes: modes.map(([id, name]) => ({ id, name })) },
      configOptions: [
        select("mode", "mode", s.mode!, modes),
        select("allow_all", "permissions", "off", [
          ["on", "on"],
          ["off", "off"],
        ]),
      ],
    };
  }
  const models: [string, string][] = [
    ["grok-4.6", "Grok 4.6"],
    ["grok-4.5", "Grok 4.5"],
  ];
  return {
    models: { currentModelId: s.model, availableModels: models.map(([modelId, name]) => ({ modelId, name })) },
    configOptions: [
      select("model", "model", s.model!, models),
      select("reasoning_effort", "thought_level", s.effort!, [
        ["xhigh", "x"],
        ["high", "h"],
        ["medium", "m"],
        ["low", "l"],
      ]),
    ],
  };
}

let reloads = 0;

const initial = (): State =>
  profile === "qwen"
    ? { mode: "default", model: "qwen-test", effort: null, calls: [], mcpReady: false, cost: 0 }
    : profile === "claude"
      ? { mode: "auto", model: "default", effort: "default", calls: [], mcpReady: false, cost: 0 }
      : profile === "copilot"
        ? {
            mode: "https://agentclientprotocol.com/protocol/session-modes#agent",
            model: null,
            effort: null,
            calls: [],
            mcpReady: false,
            cost: 0,
          }
        : { mode: null, model: "grok-4.6", effort: "high", calls: [], mcpReady: false, cost: 0 };

const PERMISSION_OPTIONS: Record<string, acp.PermissionOption[]> = {
  // Grok lists allow_always first (STACK.md): the relay must still not pick it.
  grok: [
    { optionId: "always", name: "Always allow", kind: "allow_always" },
    { optionId: "once", name: "Allow once", kind: "allow_once" },
    { optionId: "no", name: "Reject", kind: "reject_once" },
  ],
  default: [
    { optionId: "allow", name: "Allow", kind: "allow_once" },
    { optionId: "allow_always", name: "Always allow", kind: "allow_always" },
    { optionId: "reject", name: "Reject", kind: "reject_once" },
  ],
};

const app = acp
  .agent({ name: `fake-${profile}` })
  .onRequest("initialize", ({ params, client }) => {
    if (profile === "claude") {
      setTimeout(
        () =>
          void client.notify("_auth/status_update", {
            authStatus: signedOut
              ? { kind: "none", label: "Not logged in" }
              : { kind: "api_key", detail: "ANTHROPIC_API_KEY" },
          }),
        20,
      );
    }
    return {
      protocolVersion: params.protocolVersion ?? acp.PROTOCOL_VERSION,
      agentCapabilities: { mcpCapabilities: { http: true }, ...(historyDir ? { loadSession: true } : {}) },
      agentInfo: { name: `fake-${profile}`, version: "0.0.1" },
      authMethods:
        profile === "copilot"
          ? [{ id: "copilot-login", name: "Log in with Copilot CLI" }]
          : profile === "grok"
            ? [{ id: "grok.com", name: "Grok" }]
            : [],
    };
  })
  .onRequest("session/new", ({ params, client }) => {
    if (signedOut && profile !== "claude") throw acp.RequestError.authRequired(undefined, "Authentication required");
    const id = randomUUID();
    const s = initial();
    sessions.set(id, s);
    // Grok connects its MCP servers after answering (STACK.md); the relay must wait for this.
    if (profile === "grok" && params.mcpServers.length) {
      setTimeout(
        () => {
          s.mcpReady = true;
          void client.notify("_x.ai/mcp_initialized", { sessionId: id, mcpToolCount: 1, elapsedMs: 400 });
        },
        Number(process.env.FAKE_ACP_MCP_DELAY_MS ?? 400),
      );
    }
    if (profile === "qwen" && params.mcpServers.length)
      setTimeout(() => process.stderr.write("MCP server(s) failed to start: relay\n"), 100);
    return { sessionId: id, ...advertised(s) } as acp.NewSessionResponse;
  })
  .onRequest("session/load", async ({ params, client }) => {
    if (!historyDir || !existsSync(historyFile(params.sessionId)))
      throw acp.RequestError.resourceNotFound(params.sessionId);
    for (const t of historyOf(params.sessionId)) {
      await client.notify("session/update", {
        sessionId: params.sessionId,
        update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: t.prompt } },
      });
      await client.notify("session/update", {
        sessionId: params.sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: t.reply } },
      });
    }
    const s = initial();
    sessions.set(params.sessionId, s);
    return advertised(s) as acp.LoadSessionResponse;
  })
  .onRequest("session/set_mode", ({ params }) => {
    const s = sessions.get(params.sessionId)!;
    s.calls.push(`set_mode ${params.modeId}`);
    s.mode = params.modeId;
    return {};
  })
  .onRequest("session/set_config_option", ({ params }) => {
    const s = sessions.get(params.sessionId)!;
    const value = String(params.value);
    s.calls.push(`set_config_option ${params.configId}=${value}`);
    const cfg = (advertised(s).configOptions as { id: string; category: string; options: { value: string }[] }[]).find(
      (o) => o.id === params.configId,
    );
    if (!cfg) throw acp.RequestError.invalidParams(undefined, `Unknown config option: ${params.configId}`);
    // Every CLI takes only what it listed (Claude refuses full ids: cli-findings.md).
    const known = cfg.options.some((o) => o.value === value);
    if (!known)
      throw acp.RequestError.invalidParams(undefined, `Invalid value for config option ${params.configId}: ${value}`);
    if (cfg.category === "mode") s.mode = value;
    if (cfg.category === "model") s.model = value;
    if (cfg.category === "thought_level") s.effort = value;
    return { configOptions: advertised(s).configOptions } as acp.SetSessionConfigOptionResponse;
  })
  .onRequest(
    "session/set_model",
    (p) => p as { sessionId: string; modelId: string },
    ({ params }) => {
      const s = sessions.get(params.sessionId)!;
      s.calls.push(`set_model ${params.modelId}`);
      s.model = params.modelId;
      return {};
    },
  )
  .onRequest(
    "qwen/control/workspace/mcp/reload",
    (p) => p as Record<string, unknown>,
    () => {
      reloads++;
      return {};
    },
  )
  .onRequest("session/prompt", async ({ params, client }) => {
    const s = sessions.get(params.sessionId)!;
    const text = params.prompt.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
    const out: string[] = [];
    const update = (u: Record<string, unknown>) =>
      client.notify("session/update", { sessionId: params.sessionId, update: u as acp.SessionUpdate });
    let usage: Record<string, number> | undefined;
    for (const line of text.split("\n")) {
      const [cmd, ...rest] = line.trim().split(/\s+/);
      const arg = rest.join(" ");
      if (cmd === "/state")
        out.push(JSON.stringify({ mode: s.mode, model: s.model, effort: s.effort, calls: s.calls }));
      // Values as a short hash: the relay masks its secrets in everything it shows.
      else if (cmd === "/env")
        out.push(rest.map((n) => `${n}=${process.env[n] === undefined ? "<unset>" : hash(process.env[n]!)}`).join(" "));
      else if (cmd === "/pid") out.push(`pid ${process.pid}`);
      else if (cmd === "/mcp") out.push(`mcp ready: ${s.mcpReady ? "yes" : "no"}`);
      else if (cmd === "/reloads") out.push(`reloads: ${reloads}`);
      else if (cmd === "/history")
        out.push(`history: ${JSON.stringify(historyOf(params.sessionId).map((t) => t.prompt))}`);
      else if (cmd === "/permission" || cmd === "/permission-always") {
        const options =
          cmd === "/permission-always"
            ? [
                { optionId: "always", name: "Always allow", kind: "allow_always" as const },
                { optionId: "never", name: "Always reject", kind: "reject_always" as const },
              ]
            : (PERMISSION_OPTIONS[profile] ?? PERMISSION_OPTIONS.default);
        const toolCallId = `perm_${randomUUID().slice(0, 8)}`;
        await update({
          sessionUpdate: "tool_call",
          toolCallId,
          title: arg || "Run ls",
          kind: "execute",
          status: "pending",
          rawInput: { command: arg || "ls" },
        });
        const res = await client.request("session/request_permission", {
          sessionId: params.sessionId,
          toolCall: { toolCallId, title: arg || "Run ls", rawInput: { command: arg || "ls" } },
          options,
        });
        const chosen = res.outcome.outcome === "selected" ? res.outcome.optionId : "cancelled";
        const ran = options.find((o) => o.optionId === chosen)?.kind.startsWith("allow") ?? false;
        await update({ sessionUpdate: "tool_call_update", toolCallId, status: ran ? "completed" : "failed" });
        out.push(`permission: ${chosen}`);
      } else if (cmd === "/permission-edit") {
        // As claude-agent-acp asks before its Edit tool: the file, the input and the diff.
        const path = arg || "/w/a.txt";
        const toolCallId = `perm_${randomUUID().slice(0, 8)}`;
        const toolCall = {
          toolCallId,
          title: `Edit ${path}`,
          kind: "edit" as const,
          rawInput: { file_path: path, old_string: "old line\n", new_string: "new line\n" },
          locations: [{ path }],
          content: [{ type: "diff" as const, path, oldText: "keep\nold line\n", newText: "keep\nnew line\n" }],
        };
        await update({ sessionUpdate: "tool_call", ...toolCall, status: "pending" });
        const res = (await client.request("session/request_permission", {
          sessionId: params.sessionId,
          toolCall,
          options: PERMISSION_OPTIONS[profile] ?? PERMISSION_OPTIONS.default,
        })) as acp.RequestPermissionResponse;
        out.push(`permission: ${res.outcome.outcome === "selected" ? res.outcome.optionId : "cancelled"}`);
      } else if (cmd === "/tool") {
        await update({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Let me " } });
        await update({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "edit the file." } });
        await update({
          sessionUpdate: "plan",
          entries: [{ content: "Edit a.txt", status: "in_progress", priority: "high" }],
        });
        await update({
          sessionUpdate: "tool_call",
          toolCallId: "t1",
          title: "Edit a.txt",
          kind: "edit",
          status: "in_progress",
          locations: [{ path: "/w/a.txt" }],
        });
        await update({
          sessionUpdate: "tool_call_update",
          toolCallId: "t1",
          status: "completed",
          content: [
            { type: "diff", path: "/w/a.txt", oldText: "old\n", newText: "new\n" },
            { type: "content", content: { type: "text", text: "1 line changed" } },
          ],
        });
        await update({
          sessionUpdate: "plan",
          entries: [{ content: "Edit a.txt", status: "completed", priority: "high" }],
        });
        out.push("edited");
      } else if (cmd === "/relaytool") {
        const title =
          profile === "claude" ? "mcp__relay__relay_tool" : profile === "copilot" ? "relay-relay_tool" : "use_tool";
        const rawInput =
          profile === "grok"
            ? {
                variant: "UseTool",
                tool_name: "relay__relay_tool",
                tool_input: { action: "list_sessions", relay: "this" },
              }
            : { action: "read_session", relay: "this", session: "ses_x" };
        await update({
          sessionUpdate: "tool_call",
          toolCallId: "r1",
          title,
          kind: "other",
          status: "pending",
          rawInput,
        });
        await update({ sessionUpdate: "tool_call_update", toolCallId: "r1", status: "completed" });
        out.push("called relay");
      } else if (cmd === "/usage") {
        const [inTok, outTok, cost] = rest.map(Number);
        s.cost += cost;
        await update({
          sessionUpdate: "usage_update",
          used: inTok + outTok,
          size: 200000,
          cost: { amount: s.cost, currency: "USD" },
        });
        usage = { inputTokens: inTok, outputTokens: outTok, cachedReadTokens: 5, totalTokens: inTok + outTok + 5 };
        out.push("usage sent");
      } else if (cmd === "/refused-reply") {
        // Copilot with a wrong provider key: no ACP error, the reply says it.
        out.push(
          "Info: Request failed due to a transient API error. Retrying...Error: Authentication failed with provider at http://127.0.0.1:9/v1 (HTTP 401).\n  Check your COPILOT_PROVIDER_API_KEY.",
        );
      } else if (cmd === "/fail") {
        if (arg === "auth") throw acp.RequestError.authRequired(undefined, "Authentication required");
        if (arg === "rate")
          throw acp.RequestError.internalError(undefined, "429 Rate limit exceeded, please slow down");
        throw acp.RequestError.internalError(undefined, `something broke: ${arg}`);
      } else if (cmd === "/crash") {
        process.stderr.write("fatal: the fake agent crashed on purpose\n");
        process.exit(3);
      } else if (line.trim()) out.push(`echo: ${line.trim()}`);
    }
    await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: out.join("\n") } });
    remember(params.sessionId, { prompt: text, reply: out.join("\n") });
    // Grok reports its counts in the response's _meta, the others in `usage`.
    return {
      stopReason: "end_turn",
      ...(usage ? (profile === "grok" ? { _meta: usage } : { usage }) : {}),
    } as acp.PromptResponse;
  })
  .onNotification("session/cancel", () => {});

app.connect(
  acp.ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>,
  ),
);
process.stdin.on("end", () => process.exit(0));
