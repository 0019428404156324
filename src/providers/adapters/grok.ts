import { secretVar, type ProviderAdapter } from "./types.ts";

// Grok CLI (@xai-official/grok, pinned 1.0.41), `grok agent stdio`.
// - The owner's xaiApiKey is given as XAI_API_KEY.
// - Only the `--xai-api-base-url` flag moves its API (no variable does): a relay started with
//   OAR_GROK_BASE_URL passes it (proxies, the offline set-up of the tests).
// - `session/new` answers before its MCP servers are connected; a prompt sent earlier runs
//   without relay_tool. The worker waits (bounded) for `_x.ai/mcp_initialized` first.
// - No modes: the relay's ask and plan become permission cards.
export const grok: ProviderAdapter = {
  id: "grok",
  binary: "grok",
  secretSettings: ["xaiApiKey"],
  secretEnv: ["XAI_API_KEY"],
  launch(ctx) {
    if (!ctx.binary) return null;
    const key = ctx.settings.xaiApiKey;
    const base = process.env.OAR_GROK_BASE_URL;
    return {
      command: ctx.binary,
      args: ["agent", ...(base ? ["--xai-api-base-url", base] : []), "stdio"],
      env: secretVar("XAI_API_KEY", key),
    };
  },
  signIn: "run `grok login` (or add an xAI API key in Settings → Providers)",
  waitsForBeforeFirstPrompt: {
    method: "_x.ai/mcp_initialized",
    timeoutMs: 20_000,
    why: "its MCP connection (relay_tool)",
  },
};
