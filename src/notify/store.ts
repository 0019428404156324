import { DAY_MS } from "./retry.ts";
import type { NotificationRow } from "./channel.ts";
import type { Composed, WaitingNeed } from "./gathering.ts";
import type { Need } from "./needs.ts";
import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";

// Rows of the notify tables (store/schema/notify.ts); no rules here.

export interface ItemRow extends WaitingNeed {
  key: string;
  raised_at: number;
  status: "waiting" | "sent" | "settled";
  notification_id: string | null;
  ended_at: number | null;
}

export interface DeliveryRow {
  id: number;
  notification_id: string;
  channel: string;
  target: string;
  status: "pending" | "sent" | "failed" | "dropped";
  attempts: number;
  due_at: number | null;
  last_error: string | null;
  ended_at: number | null;
}

export class NotifyStore {
  constructor(private db: Db) {}

  /** Records a need once; false when its key was seen before. */
  insertItem(n: Need, now: number): boolean {
    return (
      sql(
        this.db,
        `INSERT OR IGNORE INTO notify_items (key, kind, session_id, session_title, title, text, card_json, raised_at, status)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'waiting')`,
      ).run(n.key, n.kind, n.sessionId, n.sessionTitle, n.title, n.text, n.card ? JSON.stringify(n.card) : null, now)
        .changes > 0
    );
  }

  /** It stopped mattering (decided, expired, answered): a waiting one will not go out; a
   * sent one's pending deliveries see it. True when a waiting one was dropped. */
  settle(key: string, now: number): boolean {
    const r = sql(this.db, "SELECT status FROM notify_items WHERE key = ? AND ended_at IS NULL").get(key) as
      | { status: string }
      | undefined;
    if (!r) return false;
    sql(
      this.db,
      "UPDATE notify_items SET ended_at = ?, status = CASE status WHEN 'waiting' THEN 'settled' ELSE status END WHERE key = ?",
    ).run(now, key);
    return r.status === "waiting";
  }

  /** Keys of needs not settled yet (waiting or sent), for checking they still need the owner. */
  openKeys(): string[] {
    return (sql(this.db, "SELECT key FROM notify_items WHERE ended_at IS NULL").all() as { key: string }[]).map(
      (r) => r.key,
    );
  }

  firstWaitingAt(): number | null {
    const r = sql(
      this.db,
      "SELECT raised_at FROM notify_items WHERE status = 'waiting' ORDER BY raised_at LIMIT 1",
    ).get() as { raised_at: number } | undefined;
    return r?.raised_at ?? null;
  }

  waiting(upTo: number): ItemRow[] {
    return sql(
      this.db,
      "SELECT * FROM notify_items WHERE status = 'waiting' AND raised_at <= ? ORDER BY raised_at, rowid",
    ).all(upTo) as ItemRow[];
  }

  lastSentAt(): number | null {
    const r = sql(this.db, "SELECT MAX(created_at) AS t FROM notify_notifications").get() as { t: number | null };
    return r.t;
  }

  /** The notification and its items marked sent (inside the caller's transaction). */
  insertNotification(id: string, c: Composed, keys: string[], now: number): void {
    sql(
      this.db,
      `INSERT INTO notify_notifications (id, type, session_id, title, body, url, card_json, items, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(id, c.type, c.sessionId, c.title, c.body, c.url, c.card ? JSON.stringify(c.card) : null, keys.length, now);
    const mark = sql(this.db, "UPDATE notify_items SET status = 'sent', notification_id = ? WHERE key = ?");
    for (const k of keys) mark.run(id, k);
  }

  notification(id: string): NotificationRow | undefined {
    return sql(this.db, "SELECT * FROM notify_notifications WHERE id = ?").get(id) as NotificationRow | undefined;
  }

  /** Every need in the notification stopped mattering before it reached the owner. */
  allSettled(notificationId: string): boolean {
    return !sql(this.db, "SELECT 1 FROM notify_items WHERE notification_id = ? AND ended_at IS NULL LIMIT 1").get(
      notificationId,
    );
  }

  addDelivery(notificationId: string, channel: string, target: string, now: number): void {
    sql(
      this.db,
      "INSERT INTO notify_deliveries (notification_id, channel, target, status, due_at) VALUES (?, ?, ?, 'pending', ?)",
    ).run(notificationId, channel, target, now);
  }

  dueDeliveries(now: number): DeliveryRow[] {
    return sql(
      this.db,
      "SELECT * FROM notify_deliveries WHERE status = 'pending' AND due_at <= ? ORDER BY due_at, id",
    ).all(now) as DeliveryRow[];
  }

  nextDeliveryDue(exclude: number[]): number | null {
    const rows = sql(
      this.db,
      "SELECT id, due_at FROM notify_deliveries WHERE status = 'pending' ORDER BY due_at, id LIMIT ?",
    ).all(exclude.length + 1) as { id: number; due_at: number }[];
    return rows.find((r) => !exclude.includes(r.id))?.due_at ?? null;
  }

  /** An attempt starts: counted, and its next due time set before the request goes out. */
  lease(id: number, attempts: number, dueAt: number): void {
    sql(this.db, "UPDATE notify_deliveries SET attempts = ?, due_at = ? WHERE id = ? AND status = 'pending'").run(
      attempts,
      dueAt,
      id,
    );
  }

  retryAt(id: number, dueAt: number, error: string): void {
    sql(this.db, "UPDATE notify_deliveries SET due_at = ?, last_error = ? WHERE id = ? AND status = 'pending'").run(
      dueAt,
      error,
      id,
    );
  }

  endDelivery(id: number, status: "sent" | "failed" | "dropped", error: string | null, now: number): void {
    sql(
      this.db,
      "UPDATE notify_deliveries SET status = ?, last_error = ?, due_at = NULL, ended_at = ? WHERE id = ?",
    ).run(status, error, now, id);
  }

  deliveries(notificationId: string): DeliveryRow[] {
    return sql(this.db, "SELECT * FROM notify_deliveries WHERE notification_id = ? ORDER BY id").all(
      notificationId,
    ) as DeliveryRow[];
  }

  /** What is a week old and done with goes. A key must outlive what it is about: start-up raises
   * every card, question and notice still waiting (a budget card or a month's notice can wait
   * for weeks), so their needs stay until settled; a turn's is never raised again. */
  prune(now: number): void {
    const before = now - 7 * DAY_MS;
    sql(this.db, "DELETE FROM notify_deliveries WHERE status != 'pending' AND ended_at < ?").run(before);
    sql(
      this.db,
      `DELETE FROM notify_notifications WHERE created_at < ?
      AND NOT EXISTS (SELECT 1 FROM notify_deliveries d WHERE d.notification_id = notify_notifications.id)`,
    ).run(before);
    sql(
      this.db,
      `DELETE FROM notify_items WHERE status != 'waiting' AND raised_at < ?
      AND (ended_at IS NOT NULL OR kind IN ('turn_error', 'turn_done'))`,
    ).run(before);
  }
}
