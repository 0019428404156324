import type { Usage } from "./activity.ts";

// Token counts as each agent reports them, read into the relay's one Usage shape:
// - ACP's `usage` field of the prompt response (Claude, Copilot, Codex, opencode);
// - Grok: the same counts directly in the response's `_meta`;
// - Gemini CLI: `_meta.quota.token_count { input_tokens, output_tokens }`;
// - Qwen Code: no usage in the response; each model reply's last text chunk carries
//   `_meta.usage { inputTokens, outputTokens, cachedReadTokens }` (summed per turn).

const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

function counts(u: Record<string, unknown>): Usage {
  const out: Usage = {};
  const input = num(u.inputTokens) ?? num(u.input_tokens);
  const output = num(u.outputTokens) ?? num(u.output_tokens);
  const cached = (num(u.cachedReadTokens) ?? 0) + (num(u.cachedWriteTokens) ?? 0);
  if (input !== undefined) out.inputTokens = input;
  if (output !== undefined) out.outputTokens = output;
  if (cached) out.cachedTokens = cached;
  return out;
}

/** The counts a prompt response reports, or null when it reports none. */
export function usageOfPromptResult(res: unknown): Usage | null {
  const r = obj(res);
  const meta = obj(r._meta);
  const quota = obj(obj(meta.quota).token_count);
  const u = r.usage
    ? obj(r.usage)
    : num(meta.inputTokens) !== undefined
      ? meta
      : Object.keys(quota).length
        ? quota
        : null;
  return u ? counts(u) : null;
}

/** The counts a session/update carries in its `_meta.usage` (Qwen's reply chunks), or null. */
export function usageOfUpdate(update: Record<string, unknown>): Usage | null {
  const u = obj(obj(update._meta).usage);
  return Object.keys(u).length ? counts(u) : null;
}

/** Adds `more` into `into` (a turn made of several model calls). */
export function addUsage(into: Usage, more: Usage): void {
  for (const k of ["inputTokens", "outputTokens", "cachedTokens"] as const) {
    if (more[k] !== undefined) into[k] = (into[k] ?? 0) + more[k]!;
  }
}
