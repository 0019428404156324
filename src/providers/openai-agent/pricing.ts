// The cost our OpenAI-protocol agent reports for a turn: DeepSeek's list prices from the one
// price table (providers/prices.ts); other endpoints are never priced (their prices are unknown).
import { costUsd as listed, type TokenCounts } from "../prices.ts";

export type { TokenCounts } from "../prices.ts";

export function costUsd(flavour: string, model: string, t: TokenCounts): number | null {
  return flavour === "deepseek" ? listed("deepseek", model, t) : null;
}
