import { isIP } from "node:net";
import { z } from "zod";
import type { Clock } from "../core/clock.ts";
import { RelayError } from "../core/errors.ts";
import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";

// Browsers subscribed to Web Push (contract §10.3): `POST /api/push/subscriptions` stores what
// PushSubscription.toJSON() gives; a push service answering 404 or 410 removes it.

export interface PushSubscriptionRow {
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: number;
}

/** Browsers come and go (a new endpoint after reinstalling); the oldest gives way. */
export const MAX_SUBSCRIPTIONS = 50;
const NOTHING = "Nothing was subscribed.";

const B64URL = /^[A-Za-z0-9_-]+={0,2}$/;
const Body = z.object({
  endpoint: z.string().max(2048),
  // PushSubscription.toJSON() also carries expirationTime (mostly null): accepted, not kept.
  expirationTime: z.number().nullable().optional(),
  keys: z.object({ p256dh: z.string().max(200), auth: z.string().max(100) }),
});

const bad = (why: string) => new RelayError("REMOTE_RELAY_INVALID_INPUT", `${why}. ${NOTHING}`);

function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  return h === "::1" || h.startsWith("::ffff:127.");
}

/** Checks a subscription as the browser sent it: an https endpoint (http only on loopback),
 * a P-256 public key (65 bytes, uncompressed) and a 16-byte auth secret, base64url. */
export function parsePushSubscription(raw: unknown): { endpoint: string; p256dh: string; auth: string } {
  const parsed = Body.safeParse(raw);
  if (!parsed.success)
    throw bad("A push subscription is { endpoint, keys: { p256dh, auth } } as the browser's PushSubscription gives it");
  const { endpoint, keys } = parsed.data;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw bad("The push endpoint is not an address");
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url.hostname))) {
    throw bad("The push endpoint must be https:// (http:// only on this machine)");
  }
  if (url.username || url.password) throw bad("The push endpoint must not carry a user name or password");
  const key = B64URL.test(keys.p256dh) ? Buffer.from(keys.p256dh, "base64url") : Buffer.alloc(0);
  if (key.length !== 65 || key[0] !== 4)
    throw bad("keys.p256dh must be the browser's P-256 public key (65 bytes, base64url)");
  const auth = B64URL.test(keys.auth) ? Buffer.from(keys.auth, "base64url") : Buffer.alloc(0);
  if (auth.length !== 16) throw bad("keys.auth must be the browser's 16-byte auth secret (base64url)");
  return { endpoint: url.toString(), p256dh: key.toString("base64url"), auth: auth.toString("base64url") };
}

export class PushSubscriptions {
  constructor(private d: { db: Db; clock: Pick<Clock, "now"> }) {}

  /** Stores (or renews) a browser's subscription. */
  add(raw: unknown): PushSubscriptionRow {
    const s = parsePushSubscription(raw);
    const { db } = this.d;
    db.transaction(() => {
      sql(
        db,
        `INSERT INTO push_subscriptions (endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?)
        ON CONFLICT(endpoint) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth`,
      ).run(s.endpoint, s.p256dh, s.auth, this.d.clock.now());
      sql(
        db,
        `DELETE FROM push_subscriptions WHERE endpoint NOT IN
        (SELECT endpoint FROM push_subscriptions ORDER BY created_at DESC, rowid DESC LIMIT ?)`,
      ).run(MAX_SUBSCRIPTIONS);
    })();
    return this.get(s.endpoint)!;
  }

  /** One browser's subscription, or (no endpoint) every one; how many went. */
  remove(endpoint?: string): number {
    if (endpoint === undefined) return sql(this.d.db, "DELETE FROM push_subscriptions").run().changes;
    let key = endpoint;
    try {
      key = new URL(endpoint).toString();
    } catch {}
    return sql(this.d.db, "DELETE FROM push_subscriptions WHERE endpoint = ?").run(key).changes;
  }

  get(endpoint: string): PushSubscriptionRow | undefined {
    return sql(this.d.db, "SELECT * FROM push_subscriptions WHERE endpoint = ?").get(endpoint) as
      | PushSubscriptionRow
      | undefined;
  }

  endpoints(): string[] {
    return (
      sql(this.d.db, "SELECT endpoint FROM push_subscriptions ORDER BY created_at, rowid").all() as {
        endpoint: string;
      }[]
    ).map((r) => r.endpoint);
  }
}
