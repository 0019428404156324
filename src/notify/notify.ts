import type { Clock } from "../core/clock.ts";
import type { Db } from "../store/db.ts";
import { ActionTokens } from "./action-tokens.ts";
import { Notifier } from "./notifier.ts";
import { ntfyChannel } from "./ntfy.ts";
import { PushSubscriptions } from "./push-subscriptions.ts";
import { httpSender, type Sender } from "./sender.ts";
import type { NotifySettings } from "../core/notify-settings.ts";
import { vapidKeys } from "./vapid-keys.ts";
import { webhookChannel } from "./webhook.ts";
import { webPushChannel } from "./web-push.ts";

// The notification domain, built once by the composition root from what it uses: the store,
// the clock, the `notify` setting, the relay's name and page address, and a sender.

export interface NotifyDeps {
  db: Db;
  clock: Clock;
  settings: () => NotifySettings;
  relayName: () => string;
  pageUrl: () => string;
  /** How requests go out; the real one trusts the system's CAs and NODE_EXTRA_CA_CERTS. */
  send?: Sender;
  /** The VAPID `sub` claim (a mailto: or https: address of the operator). */
  vapidSubject?: string;
  log?: (line: string) => void;
}

export interface Notify {
  notifier: Notifier;
  subscriptions: PushSubscriptions;
  tokens: ActionTokens;
  /** For `GET /api/push/key`: the VAPID public key (base64url), made on first use. */
  publicKey(): Promise<string>;
}

export function buildNotify(d: NotifyDeps): Notify {
  const send = d.send ?? httpSender();
  const subscriptions = new PushSubscriptions(d);
  const tokens = new ActionTokens(d);
  const channels = [
    webPushChannel({ db: d.db, clock: d.clock, send, subscriptions, tokens, subject: d.vapidSubject }),
    webhookChannel({ send, settings: d.settings, relayName: d.relayName }),
    ntfyChannel({ send, settings: d.settings }),
  ];
  const notifier = new Notifier({
    db: d.db,
    clock: d.clock,
    settings: d.settings,
    // Links point where the owner reaches the page (notify.publicUrl), else at the relay.
    pageUrl: () => d.settings().publicUrl ?? d.pageUrl(),
    channels,
    log: d.log,
  });
  return { notifier, subscriptions, tokens, publicKey: async () => (await vapidKeys(d)).publicKey };
}
