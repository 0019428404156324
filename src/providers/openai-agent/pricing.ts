// DeepSeek's list prices (USD per million tokens), for the `usage` cost of a turn. A model not in
// the table has no cost (null) rather than a guessed one; other endpoints are never priced.

interface Price {
  input: number;
  cachedInput: number;
  output: number;
}

const DEEPSEEK: Record<string, Price> = {
  "deepseek-v4": { input: 0.28, cachedInput: 0.028, output: 0.42 },
  "deepseek-v4-reasoner": { input: 0.28, cachedInput: 0.028, output: 0.42 },
  "deepseek-chat": { input: 0.28, cachedInput: 0.028, output: 0.42 },
  "deepseek-reasoner": { input: 0.28, cachedInput: 0.028, output: 0.42 },
};

export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
}

export function costUsd(flavour: string, model: string, t: TokenCounts): number | null {
  if (flavour !== "deepseek") return null;
  const p = DEEPSEEK[model];
  if (!p) return null;
  const fresh = Math.max(0, t.inputTokens - t.cachedTokens);
  const usd = (fresh * p.input + t.cachedTokens * p.cachedInput + t.outputTokens * p.output) / 1_000_000;
  return Math.round(usd * 1_000_000) / 1_000_000;
}
