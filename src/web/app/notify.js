// Desktop notifications, opt-in from the top bar: a card or a question waiting for you, and
// a turn you started that finished. Never for turns other relays' agents started (their
// prompts are role `remote`, seed §7.4), nor for the conversation you are looking at.
import { h, icon } from "./dom.js";

const KEY = "oar.notify";
const wanted = () => localStorage.getItem(KEY) === "on";
const allowed = () => typeof Notification !== "undefined" && Notification.permission === "granted";

export function notifyButton() {
  const btn = h("button", { class: "btn btn-notify", type: "button", id: "nav-notify", "aria-pressed": "false" });
  const draw = () => {
    const on = wanted() && allowed();
    btn.setAttribute("aria-pressed", String(on));
    btn.replaceChildren(icon(on ? "bell" : "bell-off"), h("span", { class: "notify-label" }, on ? "Notifications on" : "Notify me"));
    btn.title = typeof Notification === "undefined" ? "This browser has no desktop notifications" : Notification.permission === "denied" ? "The browser blocks notifications for this page" : "";
  };
  btn.addEventListener("click", async () => {
    if (wanted() && allowed()) localStorage.setItem(KEY, "off");
    else if (typeof Notification !== "undefined") {
      const p = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
      localStorage.setItem(KEY, p === "granted" ? "on" : "off");
    }
    draw();
  });
  draw();
  return btn;
}

/** One notification per thing; `tag` keeps a repeat from stacking. */
export function notify({ title, body, tag, sessionId, currentSession }) {
  if (!wanted() || !allowed()) return;
  if (sessionId && sessionId === currentSession() && document.visibilityState === "visible" && document.hasFocus()) return;
  try {
    const n = new Notification(title, { body, tag });
    n.onclick = () => {
      window.focus();
      if (sessionId) location.hash = `session=${encodeURIComponent(sessionId)}`;
      n.close();
    };
  } catch {}
}
