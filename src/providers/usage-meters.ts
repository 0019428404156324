import { capState } from "../billing/cap.ts";
import type { UsageRow } from "../sessions/usage-rows.ts";

// Per provider meters for relay_tool `usage`: what the agents reported this calendar month
// (UTC), summed from the reply messages' `usage` meta, plus the Claude API key's monthly cap.

export interface Meter {
  name: string;
  used: number;
  unit: string;
  limit: number | null;
  remaining: number | null;
  utilization: number | null;
  resetsAt: string | null;
}

export interface ProviderUsage {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  turns: number;
}

function monthBounds(now: number): { start: number; next: number } {
  const d = new Date(now);
  return {
    start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
    next: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
  };
}

/** Reported usage this month, per provider (sessions' current provider). */
export function monthlyUsage(d: { usageSince(since: number): UsageRow[] }, now: number): Map<string, ProviderUsage> {
  const { start } = monthBounds(now);
  const rows = d.usageSince(start);
  return new Map(
    rows.map((r) => [
      r.provider,
      { inputTokens: r.input, outputTokens: r.output, costUsd: Math.round(r.cost * 1e6) / 1e6, turns: r.turns },
    ]),
  );
}

export function metersFor(
  provider: string,
  u: ProviderUsage | undefined,
  settings: Record<string, unknown>,
  now: number,
): Meter[] {
  const resetsAt = new Date(monthBounds(now).next).toISOString();
  const meters: Meter[] = [];
  if (provider === "claude-api" && settings.claudeApiKey) {
    const cap = capState(settings);
    meters.push({
      name: "spend this month",
      used: cap.spentUsd,
      unit: "USD",
      limit: cap.capUsd,
      remaining: cap.capUsd === null ? null : Math.max(0, cap.capUsd - cap.spentUsd),
      utilization: cap.capUsd ? Math.min(1, cap.spentUsd / cap.capUsd) : null,
      resetsAt,
    });
  } else if (u && u.costUsd > 0) {
    meters.push({
      name: "cost reported this month",
      used: u.costUsd,
      unit: "USD",
      limit: null,
      remaining: null,
      utilization: null,
      resetsAt,
    });
  }
  if (u && (u.inputTokens || u.outputTokens)) {
    meters.push({
      name: "tokens this month",
      used: u.inputTokens + u.outputTokens,
      unit: "tokens",
      limit: null,
      remaining: null,
      utilization: null,
      resetsAt,
    });
  }
  return meters;
}
