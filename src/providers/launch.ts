import type { LaunchSpec } from "./acp-worker.ts";
import { fakeProviders, getProvider } from "./catalog.ts";
import { ownProgram } from "../core/package-paths.ts";

// How each provider's agent process is started. Every provider is an ACP agent process;
// `scripted` is ours, shipped in this package; CLI providers use the catalog's command.
// Ours run from dist/ (no compiler in the worker) when the relay does: core/package-paths.ts.
const SCRIPTED_AGENT = "src/providers/scripted/agent.ts";

export function launchSpec(provider: string, secrets: Record<string, unknown> = {}): LaunchSpec | null {
  // OAR_FAKE_PROVIDERS (test only, see catalog.ts) runs the listed providers on the scripted agent.
  if (provider === "scripted" || fakeProviders().ids.has(provider)) return ownProgram(SCRIPTED_AGENT);
  const info = getProvider(provider);
  if (info?.command) return { command: info.command, args: [...(info.args ?? [])] };
  // Key providers run through the Claude ACP adapter with the owner's key.
  if (provider === "claude-api" && typeof secrets.claudeApiKey === "string") {
    return { command: "claude-agent-acp", args: [], env: { ANTHROPIC_API_KEY: secrets.claudeApiKey } };
  }
  return null;
}
