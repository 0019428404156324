import type { ProviderAdapter } from "./types.ts";

// Qwen Code (@qwen-code/qwen-code 0.24.4; declares Node >= 22 but runs on Node 20), `qwen --acp`.
// - Signed in: `qwen` and its /auth (kept in ~/.qwen), or an OpenAI-compatible endpoint from the
//   relay's environment: OPENAI_API_KEY with OPENAI_BASE_URL and OPENAI_MODEL (the tests' local
//   chat-completions server). Otherwise session/new answers -32000 "Authentication required:
//   Use Qwen Code CLI to authenticate first."
// - Modes plan, default (asks), auto-edit, auto (a model classifier), yolo (asks nothing).
// - Usage arrives in the `_meta.usage` of each model reply's last text chunk (reported-usage.ts).
export const qwen: ProviderAdapter = {
  id: "qwen",
  binary: "qwen",
  secretSettings: [],
  secretEnv: ["OPENAI_API_KEY", "DASHSCOPE_API_KEY"],
  launch(ctx) {
    if (!ctx.binary) return null;
    return { command: ctx.binary, args: ["--acp"] };
  },
  // It gives an HTTP MCP server 5 s to connect and list its tools (not configurable for a
  // server given in session/new), counting its own start's work: on a busy machine relay_tool
  // then fails for good ("MCP server(s) failed to start: relay"). Its daemon-control extension
  // `…/mcp/reload` connects the live sessions' servers that are not connected (and leaves the
  // connected ones be; its `forceReconnectWhich` would restart them, cutting a running call).
  mcpRetry: {
    failed: /MCP server\(s\) failed to start: .*\brelay\b/,
    method: "qwen/control/workspace/mcp/reload",
    params: {},
    // In all (its own start, then up to three asks): a first prompt waits no longer than this.
    timeoutMs: 30_000,
  },
  signIn:
    "run `qwen` and sign in with /auth (or start the relay with OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL set)",
  modes: { agent: ["yolo"], ask: ["default"], plan: ["plan"] },
  // Its ids carry where the model comes from ("$runtime|openai|gpt-4o(openai)"): the relay lists the model's own id.
  modelId: (m) => m.id.replace(/^\$runtime\|[^|]*\|/, "").replace(/\([^()]*\)$/, "") || m.id,
};
