// How a failed model request is handled: retried (429, 5xx, with backoff and retry-after), or
// turned into words the owner can act on (bad key, exhausted balance, no network). The words
// become the message of the ACP error that ends the turn, which the relay stores as its error.

import { APIConnectionError, APIError, APIUserAbortError } from "openai";
import type { AgentConfig } from "./config.ts";

export const MAX_RETRIES = 4;
const MAX_DELAY_MS = 30_000;

/** What kind of failure, in the relay's words (turn-errors.ts): auth failures make it probe again. */
export type FailedKind = "auth" | "rate_limit" | "config" | "protocol";

export class TurnFailed extends Error {
  constructor(
    message: string,
    readonly kind: FailedKind = "protocol",
  ) {
    super(message);
  }
}

export function failureKind(e: unknown): FailedKind {
  const status = e instanceof APIError ? (e.status ?? 0) : 0;
  if (status === 401 || status === 403) return "auth";
  if (status === 429) return "rate_limit";
  return e instanceof APIConnectionError || status === 404 ? "config" : "protocol";
}

/** The server said the conversation no longer fits its context. */
export function isContextOverflow(e: unknown): boolean {
  if (!(e instanceof APIError) || (e.status !== 400 && e.status !== 413)) return false;
  return /context|too long|maximum.*tokens|token limit/i.test(String(e.message));
}

export function isAbort(e: unknown): boolean {
  return e instanceof APIUserAbortError || (e instanceof Error && e.name === "AbortError");
}

/** Milliseconds to wait before retry number `attempt` (0-based), or null: do not retry. */
export function retryDelay(e: unknown, attempt: number): number | null {
  if (attempt >= MAX_RETRIES || !(e instanceof APIError) || e instanceof APIConnectionError) return null;
  const status = e.status ?? 0;
  if (status !== 429 && status !== 408 && !(status >= 500 && status < 600)) return null;
  const fromHeader = retryAfterMs(e.headers);
  if (fromHeader !== null) return Math.min(fromHeader, MAX_DELAY_MS);
  return Math.min(1000 * 2 ** attempt, MAX_DELAY_MS);
}

function retryAfterMs(headers: Headers | undefined): number | null {
  const ms = headers?.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = headers?.get("retry-after");
  if (!after) return null;
  if (Number.isFinite(Number(after))) return Math.max(0, Number(after) * 1000);
  const at = Date.parse(after);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

const detail = (e: APIError) => {
  const m = String(e.message ?? "")
    .replace(/^\d{3}\s*/, "")
    .trim();
  return m ? `: ${m.slice(0, 300)}` : "";
};

/** The innermost cause's code (ECONNREFUSED, ENOTFOUND) or message: "fetch failed" says nothing. */
function rootCause(e: Error): string {
  let c: unknown = e;
  let best = e.message;
  for (let i = 0; c && typeof c === "object" && i < 5; i++) {
    const x = c as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof x.code === "string") return x.code;
    if (typeof x.message === "string" && x.message && x.message !== "fetch failed" && x.message !== "Connection error.")
      best = x.message;
    c = x.cause;
  }
  return best;
}

/** The owner-facing sentence for a request that failed for good. */
export function describeFailure(e: unknown, cfg: AgentConfig, model: string, retries: number): string {
  const where = `${cfg.name} (${cfg.baseUrl})`;
  const stopped = "The turn was stopped;";
  if (e instanceof APIConnectionError) {
    const cause = rootCause(e);
    return `Could not reach ${where}: ${cause}. ${stopped} check the network, or that the endpoint runs and the base URL in ${cfg.settingsHint} is right, then send again.`;
  }
  if (!(e instanceof APIError))
    return `${cfg.name} failed: ${e instanceof Error ? e.message : String(e)}. ${stopped} send again to retry.`;
  const status = e.status ?? 0;
  if (status === 401 || status === 403) {
    return `${cfg.name} refused the API key (${status}${detail(e)}). ${stopped} set a valid key in ${cfg.settingsHint}, then send again.`;
  }
  if (status === 402) {
    return `${cfg.name} says the account's balance is exhausted (402${detail(e)}). ${stopped} top up the account${cfg.flavour === "deepseek" ? " at platform.deepseek.com" : ""}, then send again.`;
  }
  if (status === 404) {
    return `${cfg.name} does not know model '${model}' or the endpoint (404${detail(e)}). ${stopped} pick a model the endpoint lists, or fix the base URL in ${cfg.settingsHint}.`;
  }
  if (status === 429) {
    return `${cfg.name} kept rate-limiting the requests (429${detail(e)}) after ${retries} retries. ${stopped} wait a minute and send again.`;
  }
  if (status >= 500) {
    return `${cfg.name} had a server error (${status}${detail(e)}) after ${retries} retries. ${stopped} send again later.`;
  }
  return `${cfg.name} refused the request (${status}${detail(e)}). ${stopped} nothing more was sent.`;
}
