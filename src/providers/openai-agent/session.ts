// One ACP session of the agent: the conversation as the chat API sees it, and the settings the
// relay gives it (model, mode, effort, compaction window).

import type OpenAI from "openai";
import type { McpLink } from "./tools/mcp.ts";

export type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam & { reasoning_content?: string };

export const MODES = [
  { id: "agent", name: "Agent", description: "Reads, edits and runs commands without asking." },
  { id: "ask", name: "Ask", description: "Asks before every edit, write and command." },
  { id: "plan", name: "Plan", description: "Read-only tools; asks before anything that changes files." },
] as const;
export type ModeId = (typeof MODES)[number]["id"];
export const isMode = (m: unknown): m is ModeId => MODES.some((x) => x.id === m);

export interface AgentSession {
  id: string;
  cwd: string;
  model: string;
  mode: ModeId;
  effort?: string;
  /** update_session's auto_compact_window as the relay stores it: "auto" or tokens (DeepSeek: 0 = 400,000). */
  window: "auto" | number;
  /** Models the endpoint listed at session/new ([] when the list could not be read). */
  models: string[];
  history: Message[];
  /** Tokens of the conversation as of the last answer (prompt + completion), for compaction. */
  contextTokens: number;
  /** Tool kinds the user allowed for the rest of the session ("Always allow"). */
  alwaysAllowed: Set<string>;
  /** What the session's turns cost so far (DeepSeek's price table), for ACP's cumulative usage_update. */
  costUsd: number;
  mcp: McpLink | null;
  running: Set<AbortController>;
}

/** Rough size of the conversation when the server reported no usage: ~4 characters a token. */
export function estimateTokens(history: Message[]): number {
  return Math.ceil(JSON.stringify(history).length / 4);
}
