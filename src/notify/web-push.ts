import type { Clock } from "../core/clock.ts";
import type { Db } from "../store/db.ts";
import type { ActionTokens } from "./action-tokens.ts";
import { type Channel, cutBytes, type NotificationRow, outcomeOf } from "./channel.ts";
import type { Composed } from "./gathering.ts";
import type { PushSubscriptions } from "./push-subscriptions.ts";
import type { Sender } from "./sender.ts";
import { loadWebPush, vapidKeys } from "./vapid-keys.ts";

// Web Push (RFC 8030/8291/8292, contract §10.3). The web-push library encrypts the payload
// (aes128gcm) and signs the VAPID JWT; the relay's own sender carries the request (web-push
// sends over https only, and push services on loopback are http in tests). A push service
// answering 404 or 410 has forgotten the subscription: it is removed.

export interface WebPushPayload {
  title: string;
  body: string;
  url: string;
  card?: { id: string; actionToken: string; options: { id: string; name: string }[] };
}

export interface WebPushDeps {
  db: Db;
  clock: Pick<Clock, "now">;
  send: Sender;
  subscriptions: PushSubscriptions;
  tokens: ActionTokens;
  /** The VAPID `sub` claim: how a push service reaches the relay's operator. */
  subject?: string;
}

/** Push services accept 4096 bytes of ciphertext; aes128gcm adds 86 and a padding byte. */
const MAX_PAYLOAD = 3900;
/** A card waits at most an hour (and its token lives an hour); news keeps a day. */
const TTL_CARD_S = 3600;
const TTL_NEWS_S = 86_400;

export function pushPayload(n: NotificationRow, actionToken: string | null): WebPushPayload {
  const card = n.card_json ? (JSON.parse(n.card_json) as NonNullable<Composed["card"]>) : null;
  const p: WebPushPayload = { title: n.title, body: n.body, url: n.url };
  if (card && actionToken)
    p.card = { id: card.id, actionToken, options: card.options.map((o) => ({ id: o.id, name: o.name })) };
  // The body gives way first: the title, link and card must arrive whole.
  const fixed = Buffer.byteLength(JSON.stringify({ ...p, body: "" }));
  const body = cutBytes(p.body, Math.max(0, MAX_PAYLOAD - fixed - 64));
  return { ...p, body, title: cutBytes(p.title, 300) };
}

export function webPushChannel(d: WebPushDeps): Channel {
  const subject = d.subject ?? "mailto:oar-relay@relay.invalid";
  return {
    name: "webpush",
    targets: (s) => (s.webPush ? d.subscriptions.endpoints() : []),
    async send(n, endpoint) {
      const sub = d.subscriptions.get(endpoint);
      if (!sub) return { kind: "dropped", why: "the browser unsubscribed" };
      const card = n.card_json ? (JSON.parse(n.card_json) as { id: string }) : null;
      const token = card ? d.tokens.tokenFor(n.id, card.id, n.created_at) : null;
      const payload = JSON.stringify(pushPayload(n, token));
      const [webpush, keys] = await Promise.all([loadWebPush(), vapidKeys(d)]);
      const req = webpush.generateRequestDetails({ endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } }, payload, {
        vapidDetails: { subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
        TTL: card ? TTL_CARD_S : TTL_NEWS_S,
        urgency: n.type === "turn_done" ? "normal" : "high",
        // The same notification sent again (after a crash mid-request) replaces the first
        // copy at the push service instead of showing twice.
        topic: n.id.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 32),
      });
      const res = await d.send(endpoint, {
        method: "POST",
        headers: req.headers as Record<string, string | number>,
        body: req.body ?? Buffer.alloc(0),
      });
      if (res.status === 404 || res.status === 410) {
        d.subscriptions.remove(endpoint);
        return { kind: "dropped", why: `the push service answered ${res.status}; the subscription was removed` };
      }
      return outcomeOf(res);
    },
  };
}
