import { createHmac } from "node:crypto";
import { iso } from "../core/clock.ts";
import { type Channel, outcomeOf } from "./channel.ts";
import type { Sender } from "./sender.ts";
import type { NotifySettings } from "../core/notify-settings.ts";

// The webhook (contract §10.3): `POST webhookUrl` with JSON { type, relay, session, title,
// text, url, at }, signed with webhookSecret in X-OAR-Signature so the receiver knows it
// came from this relay. X-OAR-Notification names the notification: a delivery retried after
// a crash carries the same one, so a receiver can drop the second copy.

export interface WebhookDeps {
  send: Sender;
  settings: () => NotifySettings;
  relayName: () => string;
}

/** `sha256=<hex HMAC-SHA256 of the body>`. */
export const signature = (body: string, secret: string): string =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

export function webhookChannel(d: WebhookDeps): Channel {
  return {
    name: "webhook",
    targets: (s) => (s.webhookUrl ? ["webhook"] : []),
    async send(n) {
      const { webhookUrl, webhookSecret } = d.settings();
      if (!webhookUrl) return { kind: "dropped", why: "no webhookUrl is set any more" };
      const body = JSON.stringify({
        type: n.type,
        relay: d.relayName(),
        session: n.session_id,
        title: n.title,
        text: n.body,
        url: n.url,
        at: iso(n.created_at),
      });
      const headers: Record<string, string> = { "Content-Type": "application/json", "X-OAR-Notification": n.id };
      if (webhookSecret) headers["X-OAR-Signature"] = signature(body, webhookSecret);
      return outcomeOf(await d.send(webhookUrl, { method: "POST", headers, body }));
    },
  };
}
