import type { ProviderAdapter } from "./types.ts";

// Codex through its ACP adapter (@agentclientprotocol/codex-acp 2.6.0, which runs the Codex
// CLI's app server: @openai/codex 0.166.0, the one version its ^0.166.0 range allows).
// - Signed in: `codex-acp login` (ChatGPT or an API key, kept in CODEX_HOME), an API key in
//   CODEX_API_KEY / OPENAI_API_KEY (used through its `api-key` method, which the relay asks for
//   with DEFAULT_AUTH_REQUEST when its worker gets a key: an OPENAI_API_KEY equal to the
//   owner's openaiApiKey setting, OpenAI Image's key, is kept from it), or a custom model provider in Codex's
//   config.toml (`model_provider` with `base_url`, `wire_api = "responses"`: the tests' local
//   server). Otherwise session/new answers -32000 "Authentication required".
// - Modes are approval presets: `agent-full-access` asks nothing (the relay's agent mode),
//   `read-only` asks session/request_permission before an MCP call (ask and plan: cards).
// - relay_tool reaches the model as `relay_tool` in the namespace `mcp__relay`.
export const codex: ProviderAdapter = {
  id: "codex",
  binary: "codex-acp",
  secretSettings: [],
  secretEnv: ["CODEX_API_KEY", "OPENAI_API_KEY"],
  launch(ctx) {
    if (!ctx.binary) return null;
    const key = ctx.env.CODEX_API_KEY || ctx.env.OPENAI_API_KEY;
    const env: Record<string, string> = key ? { DEFAULT_AUTH_REQUEST: JSON.stringify({ methodId: "api-key" }) } : {};
    return { command: ctx.binary, args: [], env };
  },
  signIn: "run `codex-acp login` (or start the relay with CODEX_API_KEY set)",
  withheld: (relay, worker) =>
    !relay.CODEX_API_KEY && relay.OPENAI_API_KEY && !worker.OPENAI_API_KEY
      ? "the relay's OPENAI_API_KEY is kept from Codex, as it is another provider's secret setting too (such as openaiApiKey, OpenAI Image's key): set CODEX_API_KEY for Codex"
      : null,
  modes: { agent: ["agent-full-access"], ask: ["read-only"], plan: ["read-only"] },
};
