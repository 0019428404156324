// The shape every tool the model can call has: its function schema for the API, how it is shown
// as an ACP tool call, whether it changes anything (asked in ask/plan mode), and its handler.

import type { Notify } from "../../scripted/tasks.ts";

export type ToolKind = "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "other";

export interface Diff {
  path: string;
  oldText: string | null;
  newText: string;
}

export interface ToolContext {
  cwd: string;
  sessionId: string;
  signal: AbortSignal;
  /** ACP extension notifications to the relay (background tasks). */
  notify: Notify;
  /** Writes through the client (ACP `fs/write_text_file`) when it offers that: the relay then
   * sees the edit and may refuse it (another session's claim, contract §10.1). */
  writeText?(abs: string, content: string): Promise<unknown>;
}

export interface ToolResult {
  text: string;
  failed?: boolean;
  diff?: Diff;
}

export interface Tool {
  name: string;
  description: string;
  /** JSON schema of the arguments. */
  parameters: Record<string, unknown>;
  kind: ToolKind;
  /** Changes files or runs things: asks permission in ask/plan mode; left out of plan mode's list. */
  writes: boolean;
  title(args: Record<string, unknown>): string;
  locations?(args: Record<string, unknown>, cwd: string): string[];
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
}

export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
export const int = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) ? Math.floor(v) : undefined;
