import type { QuietWindow } from "../watching/quiet-hours.ts";
import type { CardOption, NeedKind } from "./needs.ts";

// When waiting needs go out, and as what (contract §10.3): the first at once; what follows
// within 30 s of a notification goes out as one at the end of those 30 s ("3 sessions need
// you"); inside quiet hours everything waits for their end and then goes out as one.

export const GATHER_MS = 30_000;

/** The earliest waiting need was raised at `firstRaisedAt`; the last notification went out at
 * `lastSentAt`. A steady stream thus reaches the owner at most once every 30 s. */
export function dueAt(firstRaisedAt: number, lastSentAt: number | null, quiet: QuietWindow | null): number {
  const t = lastSentAt == null ? firstRaisedAt : Math.max(firstRaisedAt, lastSentAt + GATHER_MS);
  return quiet ? quiet.shift(t) : t;
}

export interface WaitingNeed {
  kind: NeedKind;
  session_id: string | null;
  session_title: string | null;
  title: string;
  text: string;
  card_json: string | null;
}

export interface Composed {
  type: NeedKind | "gathered";
  sessionId: string | null;
  title: string;
  body: string;
  url: string;
  /** The one card a notification holds, which its action token acts on. */
  card: { id: string; options: CardOption[] } | null;
}

const LISTED = 10;

/** One notification for the needs going out together (oldest first). */
export function compose(items: WaitingNeed[], pageUrl: string): Composed {
  const cards = items.filter((i) => i.card_json);
  const card = cards.length === 1 ? (JSON.parse(cards[0].card_json!) as Composed["card"]) : null;
  const sessions = [...new Set(items.map((i) => i.session_id))];
  const url =
    sessions.length === 1 && sessions[0]
      ? pageLink(pageUrl, `session=${encodeURIComponent(sessions[0])}`)
      : pageLink(pageUrl, "inbox");
  if (items.length === 1) {
    const [one] = items;
    return { type: one.kind, sessionId: one.session_id, title: one.title, body: one.text, url, card };
  }
  const title =
    sessions.length > 1
      ? `${sessions.length} sessions need you`
      : `${items[0].session_title ? `"${items[0].session_title}"` : "A session"} needs you (${items.length})`;
  const lines = items.slice(0, LISTED).map((i) => `• ${i.title}`);
  if (items.length > LISTED) lines.push(`… and ${items.length - LISTED} more`);
  return {
    type: "gathered",
    sessionId: sessions.length === 1 ? sessions[0] : null,
    title,
    body: lines.join("\n"),
    url,
    card,
  };
}

/** The page with a hash route (the owner token is never in a notification's link). */
export function pageLink(pageUrl: string, hash: string): string {
  const u = new URL(pageUrl);
  u.hash = hash;
  return u.toString();
}
