import type { Budget } from "../core/budget-schema.ts";

// How a budget reads to the owner: in notices, and in the card phase B raises for a held turn.

export type NameOf = (scope: Budget["scope"], target: string) => string | null;

export const usd = (n: number): string =>
  `$${n < 10 ? n.toFixed(2) : n.toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ",")}`;
const count = (n: number): string => n.toLocaleString("en-US");

const PERIOD_WORDS = { day: "today", month: "this month", total: "so far" } as const;
const PER = { day: "per day", month: "per month", total: "in total" } as const;

/** `this relay`, `provider deepseek`, `group "Release 2.4"`, `session "Review"`. */
export function budgetSubject(b: Budget, nameOf?: NameOf): string {
  if (b.scope === "relay" || b.target === null) return "this relay";
  const name = nameOf?.(b.scope, b.target) ?? b.target;
  return b.scope === "provider" ? `provider ${name}` : `${b.scope} "${name}"`;
}

/** `Budget "daily" (this relay, per day)`. */
export const budgetTitle = (b: Budget, nameOf?: NameOf): string =>
  `Budget "${b.id}" (${budgetSubject(b, nameOf)}, ${PER[b.period]})`;

/** What was spent against the limit nearer to its end: `$0.80 of $1.00` or `80,000 of 100,000 tokens`. */
export function spentWords(b: Budget, spentUsd: number, spentTokens: number): { words: string; ratio: number } {
  const byUsd = b.usd !== null ? spentUsd / b.usd : -1;
  const byTokens = b.tokens !== null ? spentTokens / b.tokens : -1;
  return byUsd >= byTokens
    ? { words: `${usd(spentUsd)} of ${usd(b.usd!)}`, ratio: byUsd }
    : { words: `${count(spentTokens)} of ${count(b.tokens!)} tokens`, ratio: byTokens };
}

export function noticeText(b: Budget, spentUsd: number, spentTokens: number, nameOf?: NameOf): string {
  const { words, ratio } = spentWords(b, spentUsd, spentTokens);
  const pct = Math.floor(ratio * 100);
  return `${budgetTitle(b, nameOf)}: ${words} spent ${PERIOD_WORDS[b.period]} (${pct} %). At the limit, new turns under it wait for you; running turns finish.`;
}

/** The budget card's and a waiting agent's words for a turn held by `b`. */
export function heldText(b: Budget, h: { spentUsd: number; spentTokens: number }, nameOf?: NameOf): string {
  const { words } = spentWords(b, h.spentUsd, h.spentTokens);
  const until = b.period === "total" ? "" : ` or until ${b.period === "day" ? "the day" : "the month"} ends`;
  return `${budgetTitle(b, nameOf)} reached its limit: ${words} spent ${PERIOD_WORDS[b.period]}. This turn waits until the owner raises the limit or lets it run once${until}; nothing is lost.`;
}
