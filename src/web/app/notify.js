// Notifications, opt-in from the top bar ("Notify me"). Where the browser can (a secure
// origin with a service worker), it subscribes to the relay's Web Push (contract §10.3): the
// relay then reaches this device while the page is closed, cards with Allow/Deny buttons.
// While the page is open and not subscribed, it shows desktop notifications itself: a card or
// a question waiting for you, and a turn you started that finished. Never for turns other
// relays' agents started (their prompts are role `remote`, seed §7.4), nor for the
// conversation you are looking at.
import { h, icon } from "./dom.js";

const KEY = "oar.notify";
const PUSH = "oar.push";
const wanted = () => localStorage.getItem(KEY) === "on";
const allowed = () => typeof Notification !== "undefined" && Notification.permission === "granted";
const pushable = () =>
  typeof navigator !== "undefined" &&
  "serviceWorker" in navigator &&
  typeof PushManager !== "undefined" &&
  isSecureContext;
const b64u = (buf) =>
  btoa(String.fromCharCode(...new Uint8Array(buf)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

/** Registers the service worker and subscribes with the relay's VAPID key (again when the key
 * changed), then gives the relay the subscription. */
export async function subscribePush(api) {
  const reg = await navigator.serviceWorker.register("/sw.js", { type: "module", scope: "/" });
  await navigator.serviceWorker.ready;
  const { key } = await api("GET", "/api/push/key");
  let sub = await reg.pushManager.getSubscription();
  if (sub?.options?.applicationServerKey && b64u(sub.options.applicationServerKey) !== key) {
    await sub.unsubscribe();
    sub = null;
  }
  sub ??= await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  await api("POST", "/api/push/subscriptions", sub.toJSON());
  localStorage.setItem(PUSH, "on");
  return sub;
}

async function unsubscribePush(api) {
  localStorage.removeItem(PUSH);
  const reg = await navigator.serviceWorker.getRegistration("/");
  const sub = await reg?.pushManager.getSubscription();
  if (!sub) return;
  await api("DELETE", "/api/push/subscriptions", { endpoint: sub.endpoint }).catch(() => {});
  await sub.unsubscribe().catch(() => {});
}

export function notifyButton(api) {
  const btn = h("button", { class: "btn btn-notify", type: "button", id: "nav-notify", "aria-pressed": "false" });
  // Why push could not be set up, kept for the tooltip (draw() writes the tooltip each time).
  let pushFailed = "";
  const draw = () => {
    const on = wanted() && allowed();
    btn.setAttribute("aria-pressed", String(on));
    btn.replaceChildren(
      icon(on ? "bell" : "bell-off"),
      h("span", { class: "notify-label" }, on ? "Notifications on" : "Notify me"),
    );
    btn.title =
      typeof Notification === "undefined"
        ? "This browser has no desktop notifications"
        : Notification.permission === "denied"
          ? "The browser blocks notifications for this page"
          : pushable()
            ? pushFailed && wanted()
              ? `Notifications while this page is open only: push could not be set up (${pushFailed})`
              : ""
            : "Notifications while this page is open; with the page closed it needs https (README: reaching a relay from a phone)";
  };
  btn.addEventListener("click", async () => {
    if (wanted() && allowed()) {
      localStorage.setItem(KEY, "off");
      if (pushable() && api) await unsubscribePush(api).catch(() => {});
    } else if (typeof Notification !== "undefined") {
      const p = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
      localStorage.setItem(KEY, p === "granted" ? "on" : "off");
      if (p === "granted" && pushable() && api) {
        try {
          await subscribePush(api);
          pushFailed = "";
        } catch (err) {
          pushFailed = String(err?.message ?? err);
        }
      }
    }
    draw();
  });
  draw();
  return btn;
}

/** One notification per thing; `tag` keeps a repeat from stacking. */
export function notify({ title, body, tag, sessionId, currentSession }) {
  // Subscribed to push: the relay's notification (with its buttons) comes through the worker.
  if (!wanted() || !allowed() || localStorage.getItem(PUSH) === "on") return;
  if (sessionId && sessionId === currentSession() && document.visibilityState === "visible" && document.hasFocus())
    return;
  try {
    const n = new Notification(title, { body, tag });
    n.onclick = () => {
      window.focus();
      if (sessionId) location.hash = `session=${encodeURIComponent(sessionId)}`;
      n.close();
    };
  } catch {}
}
