import { fileURLToPath } from "node:url";
import type { LaunchSpec } from "./acp-worker.ts";
import { fakeProviders, getProvider } from "./catalog.ts";

// How each provider's agent process is started. Every provider is an ACP agent process;
// `scripted` is ours, shipped in this package; CLI providers use the catalog's command.
const SCRIPTED_AGENT = fileURLToPath(new URL("./scripted/agent.ts", import.meta.url));
const OPENAI_IMAGE_AGENT = fileURLToPath(new URL("./openai-image/agent.ts", import.meta.url));
const TSX = import.meta.resolve("tsx");

export function launchSpec(provider: string, secrets: Record<string, unknown> = {}): LaunchSpec | null {
  // OAR_FAKE_PROVIDERS (test only, see catalog.ts) runs the listed providers on the scripted agent.
  if (provider === "scripted" || fakeProviders().ids.has(provider)) return { command: process.execPath, args: ["--import", TSX, SCRIPTED_AGENT] };
  const info = getProvider(provider);
  if (info?.command) return { command: info.command, args: [...(info.args ?? [])] };
  if (provider === "openai-image" && typeof secrets.openaiApiKey === "string") {
    const base = typeof secrets.openaiBaseUrl === "string" && secrets.openaiBaseUrl ? secrets.openaiBaseUrl : "https://api.openai.com/v1";
    return { command: process.execPath, args: ["--import", TSX, OPENAI_IMAGE_AGENT], env: { OPENAI_API_KEY: secrets.openaiApiKey, OPENAI_BASE_URL: base } };
  }
  // Claude Cloud: the Claude adapter signed in with the owner's cloud token (the OAuth token
  // `claude setup-token` prints, read by Claude Code as CLAUDE_CODE_OAUTH_TOKEN); an API key in
  // the relay's own environment would win over it, so it is blanked.
  if (provider === "claude-cloud" && typeof secrets.claudeCloudToken === "string") {
    return { command: "claude-agent-acp", args: [], env: { CLAUDE_CODE_OAUTH_TOKEN: secrets.claudeCloudToken, ANTHROPIC_API_KEY: "" } };
  }
  // Key providers run through the Claude ACP adapter with the owner's key.
  if (provider === "claude-api" && typeof secrets.claudeApiKey === "string") {
    return { command: "claude-agent-acp", args: [], env: { ANTHROPIC_API_KEY: secrets.claudeApiKey } };
  }
  return null;
}
