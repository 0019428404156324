import type { ProviderAdapter } from "./types.ts";
import { ownProgram } from "../../core/package-paths.ts";

// OpenAI Image: our own ACP agent (../openai-image/agent.ts) on the official SDK, given the
// owner's key and endpoint (settings openaiApiKey, openaiBaseUrl). Nothing to install.
// From dist/ (no compiler in the worker) when the relay runs from it: core/package-paths.ts.
const AGENT = "src/providers/openai-image/agent.ts";

export const openaiImage: ProviderAdapter = {
  id: "openai-image",
  secretSettings: ["openaiApiKey"],
  secretEnv: ["OPENAI_API_KEY"],
  launch(ctx) {
    const key = ctx.settings.openaiApiKey;
    if (typeof key !== "string" || !key) return null;
    const base =
      typeof ctx.settings.openaiBaseUrl === "string" && ctx.settings.openaiBaseUrl
        ? ctx.settings.openaiBaseUrl
        : "https://api.openai.com/v1";
    return { ...ownProgram(AGENT), env: { OPENAI_API_KEY: key, OPENAI_BASE_URL: base } };
  },
  signIn: "add an OpenAI API key in Settings → Providers",
};
