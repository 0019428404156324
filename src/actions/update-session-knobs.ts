import { fromJson } from "../store/db.ts";
import type { SessionRow } from "../sessions/types.ts";
import { getProvider } from "../providers/catalog.ts";

// The compaction window and thinking settings of update_session (relay_tool §8.2). They
// apply to Claude sessions (Claude API included); DeepSeek takes the window (0 = 400,000
// tokens) and always thinks; other providers keep nothing of them. Stored in the session's
// extra_json, read by the session's later turns.

export type Window = "auto" | number;
export const THINKING_DISPLAYS = ["summarized", "full", "hidden"] as const;
export type ThinkingDisplay = (typeof THINKING_DISPLAYS)[number];

export const CLAUDE_WINDOWS = [100_000, 200_000, 400_000, 1_000_000] as const;
export const DEEPSEEK_WINDOWS = [100_000, 200_000, 400_000] as const;
/** DeepSeek's `0`: its whole window. */
export const DEEPSEEK_ZERO = 400_000;

export interface Knobs {
  auto_compact_window: Window | null;
  thinking_enabled: boolean | null;
  thinking_display: ThinkingDisplay | null;
}

interface Stored {
  autoCompactWindow?: Window;
  thinkingEnabled?: boolean;
  thinkingDisplay?: ThinkingDisplay;
}

type Family = "claude" | "deepseek" | "other";
const familyOf = (provider: string): Family =>
  provider === "claude" || provider === "claude-api" || provider === "claude-cloud"
    ? "claude"
    : provider === "deepseek"
      ? "deepseek"
      : "other";

export const extraOf = (s: SessionRow): Stored & Record<string, unknown> =>
  fromJson<Stored & Record<string, unknown>>(s.extra_json, {});

/** The session's window and thinking as update_session shows them; null where they do not apply. */
export function knobsOf(s: SessionRow): Knobs {
  const x = extraOf(s);
  switch (familyOf(s.provider)) {
    case "claude":
      return {
        auto_compact_window: x.autoCompactWindow ?? "auto",
        thinking_enabled: x.thinkingEnabled ?? true,
        thinking_display: x.thinkingDisplay ?? "summarized",
      };
    case "deepseek":
      return { auto_compact_window: x.autoCompactWindow ?? "auto", thinking_enabled: true, thinking_display: null };
    default:
      return { auto_compact_window: null, thinking_enabled: null, thinking_display: null };
  }
}

function nearest(n: number, list: readonly number[]): number {
  return list.reduce((best, v) => (Math.abs(v - n) < Math.abs(best - n) ? v : best), list[0]);
}

const tokens = (n: number) => `${n.toLocaleString("en-US")} tokens`;

export interface KnobPlan {
  /** What to write into extra_json. */
  patch: Stored;
  changed: (keyof Knobs)[];
  details: string[];
  notes: string[];
}

/** Works out what the knobs in a call change on this session, and what the agent should know. */
export function planKnobs(
  s: SessionRow,
  args: { auto_compact_window?: Window; thinking_enabled?: boolean; thinking_display?: ThinkingDisplay },
): KnobPlan {
  const plan: KnobPlan = { patch: {}, changed: [], details: [], notes: [] };
  const given =
    args.auto_compact_window !== undefined ||
    args.thinking_enabled !== undefined ||
    args.thinking_display !== undefined;
  if (!given) return plan;
  const family = familyOf(s.provider);
  const name = getProvider(s.provider)?.name ?? s.provider;
  const now = knobsOf(s);
  if (family === "other") {
    plan.notes.push(
      `auto_compact_window and thinking apply to Claude sessions only (Claude API included); they change nothing for this ${name} session.`,
    );
    return plan;
  }
  if (args.auto_compact_window !== undefined) {
    const asked = args.auto_compact_window;
    let value: Window = asked;
    if (asked !== "auto") {
      if (family === "deepseek" && asked === 0) value = DEEPSEEK_ZERO;
      else value = nearest(asked, family === "claude" ? CLAUDE_WINDOWS : DEEPSEEK_WINDOWS);
      if (value !== asked && !(family === "deepseek" && asked === 0)) {
        plan.notes.push(`The window took the nearest value ${name} offers: ${tokens(value)} (asked ${tokens(asked)}).`);
      }
    }
    if (value !== now.auto_compact_window) {
      plan.patch.autoCompactWindow = value;
      plan.changed.push("auto_compact_window");
      plan.details.push(`Window: ${value === "auto" ? "auto" : tokens(value)}`);
    }
  }
  if (family === "deepseek") {
    plan.notes.push(
      "Window and thinking apply to Claude sessions (Claude API included); on DeepSeek the window takes effect (0 means 400,000 tokens), " +
        "while thinking_enabled and thinking_display change nothing: DeepSeek sessions always think.",
    );
    return plan;
  }
  if (args.thinking_enabled !== undefined && args.thinking_enabled !== now.thinking_enabled) {
    plan.patch.thinkingEnabled = args.thinking_enabled;
    plan.changed.push("thinking_enabled");
    plan.details.push(`Thinking: ${args.thinking_enabled ? "on" : "off"}`);
  }
  if (args.thinking_display !== undefined && args.thinking_display !== now.thinking_display) {
    plan.patch.thinkingDisplay = args.thinking_display;
    plan.changed.push("thinking_display");
    plan.details.push(`Thinking display: ${args.thinking_display}`);
  }
  return plan;
}
