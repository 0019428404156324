import { createHash } from "node:crypto";
import { HOUR, type Clock } from "../core/clock.ts";
import { RelayError } from "../core/errors.ts";
import { newToken } from "../core/ids.ts";
import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";

// Action tokens (contract §10.3): a card's push notification carries one, so its Allow/Deny
// buttons work without the owner token. A token acts on its one card, once, within an hour
// of its notification; a used, expired or foreign one changes nothing. The store keeps only
// hashes. A token lives in memory until its hour is over so every browser subscribed (and a
// delivery retried) gets the same one; after a restart a delivery still pending gets a new
// one for the same card and hour.

export const TOKEN_TTL_MS = HOUR;
const NOTHING = "Nothing was decided.";

const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

interface TokenRow {
  hash: string;
  card_id: string;
  notification_id: string;
  expires_at: number;
  used_at: number | null;
}

export class ActionTokens {
  private live = new Map<string, { token: string; expiresAt: number }>();

  constructor(private d: { db: Db; clock: Pick<Clock, "now"> }) {}

  /** The token of a card notification made at `createdAt`; null once its hour is over. */
  tokenFor(notificationId: string, cardId: string, createdAt: number): string | null {
    const now = this.d.clock.now();
    const expiresAt = createdAt + TOKEN_TTL_MS;
    for (const [id, t] of this.live) if (t.expiresAt <= now) this.live.delete(id);
    if (expiresAt <= now) return null;
    const known = this.live.get(notificationId);
    if (known) return known.token;
    this.prune(now);
    const token = newToken();
    sql(this.d.db, "INSERT INTO action_tokens (hash, card_id, notification_id, expires_at) VALUES (?, ?, ?, ?)").run(
      hashOf(token),
      cardId,
      notificationId,
      expiresAt,
    );
    this.live.set(notificationId, { token, expiresAt });
    return token;
  }

  /** For `POST /api/cards/:id/act`: passes once for a live token of this card, which uses up
   * every token of the card; refuses (REMOTE_RELAY_PERMISSION) and changes nothing otherwise.
   * The caller then decides the card (already decided: nothing more happens). */
  verifyAndConsume(cardId: string, token: unknown): void {
    const { db } = this.d;
    const now = this.d.clock.now();
    db.transaction(() => {
      const row =
        typeof token === "string" && token.length <= 256
          ? (sql(db, "SELECT * FROM action_tokens WHERE hash = ?").get(hashOf(token)) as TokenRow | undefined)
          : undefined;
      // Unknown and another card's token read the same: nothing to learn by trying.
      if (!row || row.card_id !== cardId)
        throw new RelayError("REMOTE_RELAY_PERMISSION", `This action token does not act on card ${cardId}. ${NOTHING}`);
      if (row.used_at != null)
        throw new RelayError(
          "REMOTE_RELAY_PERMISSION",
          `This card was already acted on from a notification. ${NOTHING}`,
        );
      if (row.expires_at <= now)
        throw new RelayError(
          "REMOTE_RELAY_PERMISSION",
          `This action token expired (an hour after its notification). ${NOTHING}`,
        );
      sql(db, "UPDATE action_tokens SET used_at = ? WHERE card_id = ? AND used_at IS NULL").run(now, cardId);
    })();
  }

  /** Tokens whose hour ended a day ago are of no use even to explain a refusal. */
  private prune(now: number): void {
    sql(this.d.db, "DELETE FROM action_tokens WHERE expires_at < ?").run(now - 24 * HOUR);
  }
}
