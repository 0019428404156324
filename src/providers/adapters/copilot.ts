import { secretVar, type ProviderAdapter } from "./types.ts";

// GitHub Copilot CLI (@github/copilot, pinned 1.0.102), `copilot --acp --stdio`.
// `copilot help environment`: COPILOT_GITHUB_TOKEN, GH_TOKEN, GITHUB_TOKEN (in that order)
// take precedence over a stored login; the owner's copilotToken goes in the first. Its modes
// are URLs ending in #agent, #plan, #autopilot; the relay answers its permission requests
// itself in agent mode (allow once), so the plain agent mode is used, not autopilot.
export const copilot: ProviderAdapter = {
  id: "copilot",
  binary: "copilot",
  secretSettings: ["copilotToken"],
  secretEnv: [
    "COPILOT_GITHUB_TOKEN",
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "COPILOT_PROVIDER_API_KEY",
    "COPILOT_PROVIDER_BEARER_TOKEN",
  ],
  launch(ctx) {
    if (!ctx.binary) return null;
    const token = ctx.settings.copilotToken;
    return { command: ctx.binary, args: ["--acp", "--stdio"], env: secretVar("COPILOT_GITHUB_TOKEN", token) };
  },
  signIn: "run `copilot login` (or add a Copilot token in Settings → Providers)",
  modes: { agent: ["#agent"], ask: ["#agent"], plan: ["#plan"] },
  // Offline (a BYOK provider) it lists no models but takes session/set_model with any id.
  setModelUnadvertised: true,
  replyFailure: (reply) =>
    /(^|\n|\.\.\.)\s*Error: Authentication failed\b[^\n]*/.exec(reply)?.[0].replace(/^[\s.]*/, "") ?? null,
};
