import type { Clock } from "../core/clock.ts";
import type { Db } from "../store/db.ts";

// The relay's VAPID key pair (RFC 8292), made once by the web-push library and kept in the
// store beside the subscriptions made with it: a browser subscribes with the public key, and
// a new key would silently orphan every subscription (a backup restores both together).

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** web-push, loaded on first use: the relay starts without its crypto dependencies. */
export const loadWebPush = async () => (await import("web-push")).default;

export async function vapidKeys(d: { db: Db; clock: Pick<Clock, "now"> }): Promise<VapidKeys> {
  const read = () =>
    d.db.prepare("SELECT vapid_public AS publicKey, vapid_private AS privateKey FROM notify_keys WHERE id = 1").get() as
      | VapidKeys
      | undefined;
  const kept = read();
  if (kept) return kept;
  const made = (await loadWebPush()).generateVAPIDKeys();
  // Two callers racing at first use: the first insert wins and both read the same pair.
  d.db
    .prepare("INSERT OR IGNORE INTO notify_keys (id, vapid_public, vapid_private, created_at) VALUES (1, ?, ?, ?)")
    .run(made.publicKey, made.privateKey, d.clock.now());
  return read()!;
}
