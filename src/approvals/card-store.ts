import { iso } from "../core/clock.ts";
import { newId } from "../core/ids.ts";
import { fromJson, type Db } from "../store/db.ts";

// Approval cards as stored. A card is durable from the moment it is raised: the owner
// sees it in GET /api/cards and in its conversation, and a restart finds it (contract §1).

export type CardStatus = "pending" | "allowed" | "denied" | "expired";
/** Why a card expired without a decision. */
export type ExpiredBecause = "timeout" | "turn_ended" | "cancelled" | "relay_restarted" | "released";

export interface CardRow {
  id: string;
  session_id: string;
  kind: string;
  action: string | null;
  relay: string | null;
  target_session: string | null;
  text: string;
  details_json: string;
  status: CardStatus;
  decision_json: string | null;
  created_at: number;
  expires_at: number | null;
  decided_at: number | null;
}

export interface NewCard {
  sessionId: string;
  action: string;
  relay: string;
  target: { id: string; title: string } | null;
  text: string;
  details: string[];
  reasons: string[];
  turnId: string;
  now: number;
  /** null: no expiry (a budget card waits as long as its held turn). */
  expiresAt: number | null;
  /** "approval" (relay_tool calls), "permission" (a CLI's own request before a tool) or
   * "budget" (a turn held by a budget, contract §10.4: raise / allow once / stop). */
  kind?: "approval" | "permission" | "budget";
  /** What it approves, whole (contract §10.3): the text to send, the changes, the command and diff. */
  detail?: string | null;
  /** A permission card's choices: the CLI's options as it sent them. */
  options?: PermissionChoice[] | { id: string; name: string }[];
  /** More of the card's own (a budget card's budget id). */
  extra?: Record<string, unknown>;
}

export interface PermissionChoice {
  id: string;
  name: string;
  kind: string;
}

/** A card's `detail` is kept up to this many characters (a prompt's limit is larger, but a
 * card is read by a person; the cut says so). */
export const MAX_DETAIL = 100_000;

const cutDetail = (d: string) =>
  d.length > MAX_DETAIL ? `${d.slice(0, MAX_DETAIL)}\n… (cut: ${d.length} characters in all)` : d;

/** How many of a conversation's cards its detail shows, newest last. */
const RECENT_PER_SESSION = 50;

export class CardStore {
  constructor(private db: Db) {}

  get(id: string): CardRow | undefined {
    return this.db.prepare("SELECT * FROM cards WHERE id = ?").get(id) as CardRow | undefined;
  }

  pending(sessionId?: string): CardRow[] {
    return (
      sessionId
        ? this.db
            .prepare("SELECT * FROM cards WHERE status = 'pending' AND session_id = ? ORDER BY created_at, rowid")
            .all(sessionId)
        : this.db.prepare("SELECT * FROM cards WHERE status = 'pending' ORDER BY created_at, rowid").all()
    ) as CardRow[];
  }

  /** The conversation's latest cards, pending and decided, oldest first. */
  recent(sessionId: string): CardRow[] {
    const rows = this.db
      .prepare("SELECT * FROM cards WHERE session_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?")
      .all(sessionId, RECENT_PER_SESSION) as CardRow[];
    return rows.reverse();
  }

  insert(c: NewCard): CardRow {
    const id = newId("card");
    this.db
      .prepare(`INSERT INTO cards (id, session_id, kind, action, relay, target_session, text, details_json, status, created_at, expires_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`)
      .run(
        id,
        c.sessionId,
        c.kind ?? "approval",
        c.action,
        c.relay,
        c.target?.id ?? null,
        c.text,
        JSON.stringify({
          details: c.details,
          reasons: c.reasons,
          targetTitle: c.target?.title ?? null,
          turnId: c.turnId,
          ...(c.detail ? { detail: cutDetail(c.detail) } : {}),
          ...(c.options ? { options: c.options } : {}),
          ...(c.extra ?? {}),
        }),
        c.now,
        c.expiresAt,
      );
    return this.get(id)!;
  }

  /** Moves a pending card to its end state; false when it was no longer pending. */
  settle(
    id: string,
    status: Exclude<CardStatus, "pending">,
    now: number,
    because?: ExpiredBecause,
    optionId?: string,
  ): boolean {
    const decision =
      because || optionId
        ? JSON.stringify({ ...(because ? { because } : {}), ...(optionId ? { optionId } : {}) })
        : null;
    const r = this.db
      .prepare("UPDATE cards SET status = ?, decided_at = ?, decision_json = ? WHERE id = ? AND status = 'pending'")
      .run(status, now, decision, id);
    return r.changes > 0;
  }

  /** At start-up: no call waits on a card any more. Returns the cards that expired. A budget
   * card stays: it belongs to a queued turn, which waits across the restart. */
  expireAll(now: number): CardRow[] {
    const rows = this.pending().filter((c) => c.kind !== "budget");
    this.db
      .prepare(
        "UPDATE cards SET status = 'expired', decided_at = ?, decision_json = ? WHERE status = 'pending' AND kind != 'budget'",
      )
      .run(now, JSON.stringify({ because: "relay_restarted" }));
    return rows;
  }
}

/** A card as the owner API and the stream show it. */
export function permissionOptions(c: CardRow): PermissionChoice[] | null {
  return fromJson<{ options?: PermissionChoice[] }>(c.details_json, {}).options ?? null;
}

export function cardView(c: CardRow) {
  const d = fromJson<{
    details?: string[];
    detail?: string;
    reasons?: string[];
    targetTitle?: string | null;
    options?: PermissionChoice[];
    budget?: string;
  }>(c.details_json, {});
  const decision = fromJson<{ because?: ExpiredBecause; optionId?: string } | null>(c.decision_json, null);
  return {
    id: c.id,
    session: c.session_id,
    kind: c.kind,
    action: c.action,
    relay: c.relay,
    targetSession: c.target_session,
    targetTitle: d.targetTitle ?? null,
    text: c.text,
    details: d.details ?? [],
    detail: d.detail ?? null,
    reasons: d.reasons ?? [],
    status: c.status,
    ...(decision?.because ? { expiredBecause: decision.because } : {}),
    ...(d.options ? { options: d.options } : {}),
    ...(d.budget ? { budget: d.budget } : {}),
    ...(decision?.optionId ? { optionId: decision.optionId } : {}),
    createdAt: iso(c.created_at),
    expiresAt: iso(c.expires_at),
    decidedAt: iso(c.decided_at),
  };
}
