// List prices per provider and model (USD per million tokens), the one place they are kept.
// They price a turn whose agent reports tokens but no cost: our own DeepSeek agent, and the
// budgets' spend ledger for any provider listed here. Providers whose agents report their own
// cost (Claude Code, Copilot) need no entry; a model not listed has no price (null), never a
// guessed one. Change a figure only with its provider's price page, and move `asOf` with it.

export interface Price {
  input: number;
  cachedInput: number;
  output: number;
}

export interface PriceList {
  /** The day the figures were read from the provider's price page. */
  asOf: string;
  models: Record<string, Price>;
}

const DEEPSEEK_PRICE: Price = { input: 0.28, cachedInput: 0.028, output: 0.42 };

export const PRICES: Record<string, PriceList> = {
  deepseek: {
    asOf: "2026-12-01",
    models: {
      "deepseek-v4": DEEPSEEK_PRICE,
      "deepseek-v4-reasoner": DEEPSEEK_PRICE,
      "deepseek-chat": DEEPSEEK_PRICE,
      "deepseek-reasoner": DEEPSEEK_PRICE,
    },
  },
};

export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  /** Part of inputTokens read from the provider's cache (billed at cachedInput). */
  cachedTokens: number;
}

export function priceOf(provider: string, model: string | null | undefined): Price | null {
  if (!model) return null;
  return Object.hasOwn(PRICES, provider) && Object.hasOwn(PRICES[provider].models, model)
    ? PRICES[provider].models[model]
    : null;
}

/** tokens × the listed price, rounded to a millionth of a dollar; null when none is listed. */
export function costUsd(provider: string, model: string | null | undefined, t: TokenCounts): number | null {
  const p = priceOf(provider, model);
  if (!p) return null;
  const fresh = Math.max(0, t.inputTokens - t.cachedTokens);
  const usd = (fresh * p.input + t.cachedTokens * p.cachedInput + t.outputTokens * p.output) / 1_000_000;
  return Math.round(usd * 1_000_000) / 1_000_000;
}
