import type { ProviderAdapter } from "./types.ts";

// opencode (opencode-ai 1.18.33, a native binary inside the package), `opencode acp`.
// - It serves its own free models with nobody signed in (contract §10.2: may read available);
//   `opencode auth login` adds providers. Its config (opencode.json, or the JSON in
//   OPENCODE_CONFIG_CONTENT) can add any OpenAI-compatible provider by `baseURL`: the tests'
//   local chat-completions server.
// - Its permission rules allow every tool by default, so nothing would ever reach the relay's
//   cards: the relay adds `permission: { "*": "ask" }` to OPENCODE_CONFIG_CONTENT (keeping what
//   the relay's environment put there), and answers each request by its mode (agent: allow once).
// - Modes `build` and `plan`; relay_tool is offered as `relay_relay_tool`.
export function opencodeConfig(base: string | undefined): string {
  let config: Record<string, unknown> = {};
  try {
    const parsed: unknown = base ? JSON.parse(base) : {};
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) config = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: opencode would refuse it as well; the relay's rule still applies.
  }
  return JSON.stringify({ ...config, permission: { "*": "ask" } });
}

export const opencode: ProviderAdapter = {
  id: "opencode",
  binary: "opencode",
  secretSettings: [],
  secretEnv: [],
  launch(ctx) {
    if (!ctx.binary) return null;
    return {
      command: ctx.binary,
      args: ["acp"],
      env: { OPENCODE_CONFIG_CONTENT: opencodeConfig(process.env.OPENCODE_CONFIG_CONTENT) },
    };
  },
  signIn: "run `opencode auth login`",
  modes: { agent: ["build"], ask: ["build"], plan: ["plan"] },
};
