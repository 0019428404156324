import type { SenderResponse } from "./sender.ts";
import type { NotifySettings } from "../core/notify-settings.ts";

// A place notifications go (Web Push, the webhook, ntfy): which targets a new notification
// gets under the current settings, and how one delivery to one target is sent.

export type ChannelName = "webpush" | "webhook" | "ntfy";

export interface NotificationRow {
  id: string;
  type: string;
  session_id: string | null;
  title: string;
  body: string;
  url: string;
  card_json: string | null;
  items: number;
  created_at: number;
}

export type Outcome =
  | { kind: "sent" }
  /** Worth another attempt later (no answer, 5xx, 429); `afterMs` from Retry-After. */
  | { kind: "retry"; why: string; afterMs?: number }
  /** Will never work as it is (4xx): not tried again. */
  | { kind: "failed"; why: string }
  /** Nothing to send to any more (unsubscribed, the setting removed, the need gone). */
  | { kind: "dropped"; why: string };

export interface Channel {
  readonly name: ChannelName;
  targets(s: NotifySettings): string[];
  send(n: NotificationRow, target: string): Promise<Outcome>;
}

const RETRY_AFTER_CAP_MS = 30 * 60_000;

/** What an HTTP answer means for a delivery. */
export function outcomeOf(res: SenderResponse): Outcome {
  const s = res.status;
  if (s >= 200 && s < 300) return { kind: "sent" };
  if (s === 408 || s === 425 || s === 429 || s >= 500) {
    const after = Number(res.headers["retry-after"]);
    return {
      kind: "retry",
      why: `HTTP ${s}`,
      ...(after > 0 ? { afterMs: Math.min(after * 1000, RETRY_AFTER_CAP_MS) } : {}),
    };
  }
  return { kind: "failed", why: `HTTP ${s}` };
}

/** Cuts text to at most `max` UTF-8 bytes, on a character boundary, marking the cut. */
export function cutBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let out = Buffer.from(text)
    .subarray(0, Math.max(0, max - 3))
    .toString("utf8");
  // A character split at the cut decodes as U+FFFD: drop it.
  out = out.replace(/\uFFFD+$/, "");
  return `${out}…`;
}
