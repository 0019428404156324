// The page's service worker (scope /): shows Web Push notifications, with a card's options
// as buttons that decide it by its action token, and opens the page for a plain click.
import { actOn, onThisOrigin, showPush } from "/app/push-actions.js";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (e) => e.waitUntil(self.clients.claim()));

self.addEventListener("push", (e) => {
  let payload = null;
  try {
    payload = e.data?.json() ?? null;
  } catch {}
  e.waitUntil(showPush(self.registration, payload ?? { title: "OAR", body: e.data?.text() ?? "" }));
});

self.addEventListener("notificationclick", (e) => {
  const n = e.notification;
  n.close();
  e.waitUntil(
    (async () => {
      const r = await actOn(n.data, e.action);
      // A button that could not decide (used, expired) opens the page, where the card is.
      if (r.ok) return;
      const url = onThisOrigin(r.open ?? n.data?.url ?? "/", self.location.origin);
      const open = (await self.clients.matchAll({ type: "window" })).find(
        (c) => new URL(c.url).origin === self.location.origin,
      );
      if (open) {
        await open.focus();
        return open.navigate(url).catch(() => {});
      }
      return self.clients.openWindow(url);
    })(),
  );
});
