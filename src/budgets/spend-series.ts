import { Temporal } from "temporal-polyfill";
import { RelayError } from "../core/errors.ts";
import type { Ledger } from "./ledger.ts";

// Spend over time for the page's Usage chart: one value per local day and per provider (or
// session), the largest `top` keys by spend in the window as their own series and the rest
// summed as one with key null, so a relay with thousands of sessions still draws a few lines.

export interface SpendSeries {
  by: "provider" | "session";
  /** Every local day of the window, oldest first (YYYY-MM-DD). */
  days: string[];
  /** Aligned with `days`; key null: everything outside the largest `top`. */
  series: { key: string | null; usd: number[]; tokens: number[] }[];
}

export function spendSeries(
  ledger: Ledger,
  today: string,
  opts: { days?: number; by: "provider" | "session"; top?: number },
): SpendSeries {
  const n = opts.days ?? 30;
  const top = opts.top ?? 12;
  if (!Number.isInteger(n) || n < 1 || n > 366) throw bad("days must be a whole number from 1 to 366");
  if (!Number.isInteger(top) || top < 1 || top > 100) throw bad("top must be a whole number from 1 to 100");
  if (opts.by !== "provider" && opts.by !== "session") throw bad('by must be "provider" or "session"');
  const last = Temporal.PlainDate.from(today);
  const days = Array.from({ length: n }, (_, i) => last.subtract({ days: n - 1 - i }).toString());
  const slot = new Map(days.map((d, i) => [d, i]));
  const rows = ledger.perDay(days[0], today, opts.by);
  // Largest first: by dollars, then by tokens (a provider that reports no cost still ranks).
  const sums = new Map<string, { micros: number; tokens: number }>();
  for (const r of rows) {
    const t = sums.get(r.key) ?? { micros: 0, tokens: 0 };
    t.micros += r.micros;
    t.tokens += r.tokens;
    sums.set(r.key, t);
  }
  const larger = (a: string, b: string) =>
    sums.get(b)!.micros - sums.get(a)!.micros || sums.get(b)!.tokens - sums.get(a)!.tokens;
  const kept = new Set([...sums.keys()].sort(larger).slice(0, top));
  const series = new Map<string | null, { key: string | null; micros: number[]; tokens: number[] }>();
  for (const r of rows) {
    const k = kept.has(r.key) ? r.key : null;
    let s = series.get(k);
    if (!s) series.set(k, (s = { key: k, micros: new Array(n).fill(0), tokens: new Array(n).fill(0) }));
    const i = slot.get(r.day)!;
    s.micros[i] += r.micros;
    s.tokens[i] += r.tokens;
  }
  const ordered = [...series.values()].sort((a, b) =>
    a.key === null ? 1 : b.key === null ? -1 : larger(a.key, b.key),
  );
  return {
    by: opts.by,
    days,
    series: ordered.map((s) => ({ key: s.key, usd: s.micros.map((m) => m / 1e6), tokens: s.tokens })),
  };
}

const bad = (why: string) => new RelayError("REMOTE_RELAY_INVALID_INPUT", `${why}. Nothing was read.`);
