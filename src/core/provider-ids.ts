import { z } from "zod";

// The built-in provider ids (contract §4.1, §9.2, §10.2), in a leaf module of the base layer:
// the provider catalog and the settings (a custom agent may not take one of these ids) read it.
export const PROVIDER_IDS = [
  "claude",
  "claude-api",
  "claude-cloud",
  "copilot",
  "grok",
  "deepseek",
  "openai-image",
  "scripted",
  "openai-compatible",
  "gemini",
  "codex",
  "opencode",
  "qwen",
] as const;
export const ProviderId = z.enum(PROVIDER_IDS);
export type ProviderId = z.output<typeof ProviderId>;
