// The Claude API key's monthly cap (owner settings claudeApiMonthlyCapUsd and
// claudeApiSpentUsd). At the cap the key takes no more turns: sends to Claude API sessions
// are refused before anything is queued, and switching a session to the key is refused.

export const CAP_CODE = "CLAUDE_API_CAP_REACHED";

export interface CapState {
  capUsd: number | null;
  spentUsd: number;
  reached: boolean;
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** Reads the cap from the settings object (spend already counted for the current month). */
export function capState(settings: Record<string, unknown>): CapState {
  const capUsd = num(settings.claudeApiMonthlyCapUsd);
  const spentUsd = num(settings.claudeApiSpentUsd) ?? 0;
  return { capUsd, spentUsd, reached: capUsd !== null && spentUsd >= capUsd };
}

const usd = (n: number) => `$${n.toFixed(2)}`;

export function capReason(c: CapState): string {
  return `the Claude API key reached its monthly cap (${usd(c.spentUsd)} spent of ${usd(c.capUsd ?? 0)})`;
}
