import { claude, claudeApi } from "./claude.ts";
import { copilot } from "./copilot.ts";
import { grok } from "./grok.ts";
import { scripted } from "./scripted.ts";
import { deepseekAdapter, openaiCompatibleAdapter } from "../openai-agent/provider.ts";
import { claudeCloud } from "./claude-cloud.ts";
import { openaiImage } from "./openai-image.ts";
import { gemini } from "./gemini.ts";
import { codex } from "./codex.ts";
import { opencode } from "./opencode.ts";
import { qwen } from "./qwen.ts";
import { customAdapter } from "../custom-agents.ts";
import type { ProviderAdapter } from "./types.ts";

export type { ProviderAdapter, LaunchSpec, LaunchContext, Advertised } from "./types.ts";

// The adapters this relay has. Other provider modules (DeepSeek, OpenAI-compatible, OpenAI
// Image, Claude Cloud) add theirs here: one import and one line.
const ADAPTERS = new Map<string, ProviderAdapter>(
  [
    claude,
    claudeApi,
    copilot,
    grok,
    scripted,
    deepseekAdapter,
    openaiCompatibleAdapter,
    claudeCloud,
    openaiImage,
    gemini,
    codex,
    opencode,
    qwen,
  ].map((a) => [a.id, a]),
);

export function adapterFor(id: string): ProviderAdapter | undefined {
  return ADAPTERS.get(id) ?? customAdapter(id);
}

export function allAdapters(): ProviderAdapter[] {
  return [...ADAPTERS.values()];
}

/** For a provider module that registers itself instead of being listed above. */
export function registerAdapter(a: ProviderAdapter): void {
  ADAPTERS.set(a.id, a);
}
