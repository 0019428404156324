import type { ProviderAdapter } from "./types.ts";

// Gemini CLI (@google/gemini-cli, pinned 0.61.0), `gemini --acp`.
// - Signed in: a Google login (`gemini`, then "Log in with Google") or GEMINI_API_KEY /
//   GOOGLE_API_KEY in the relay's environment; without one, session/new answers -32000
//   "Gemini API key is missing or not configured." (contract §10.2: signed out).
// - GOOGLE_GEMINI_BASE_URL moves its API (a proxy, the tests' local server; loopback may be
//   plain http); set, it signs in through its "gateway" method with the key.
// - It starts the MCP servers of session/new (relay_tool, seen as `mcp_relay_relay_tool`) and
//   allows its `yolo` mode only in a trusted folder: the session's folder is the owner's
//   choice, so the relay says it is trusted (GEMINI_CLI_TRUST_WORKSPACE); the relay's mode
//   still decides what runs (cards in ask and plan).
// - Usage comes in the prompt response's `_meta.quota.token_count` (reported-usage.ts).
export const gemini: ProviderAdapter = {
  id: "gemini",
  binary: "gemini",
  secretSettings: [],
  secretEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
  launch(ctx) {
    if (!ctx.binary) return null;
    // It would start itself again as a child with a larger heap: one process is enough here.
    return {
      command: ctx.binary,
      args: ["--acp"],
      env: { GEMINI_CLI_TRUST_WORKSPACE: "true", GEMINI_CLI_NO_RELAUNCH: "true" },
    };
  },
  signIn: "run `gemini` and choose Log in with Google (or start the relay with GEMINI_API_KEY set)",
  modes: { agent: ["yolo"], ask: ["default"], plan: ["plan"] },
};
