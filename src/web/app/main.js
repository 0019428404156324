// The OAR web UI: boot (token from the URL fragment), a hash router (#session=ID, #inbox,
// #settings, #new), live updates over the /api/stream SSE, and debounced re-fetches of
// whatever an event says changed.
import { h } from "./dom.js";
import { api, getToken, setToken, forgetToken, takeTokenFromUrl, openStream } from "./api.js";
import { renderSidebar } from "./sidebar.js";
import { ConversationView } from "./conversation.js";
import { InboxView } from "./inbox.js";
import { SettingsView } from "./settings.js";
import { NewSessionView } from "./new-session.js";
import { showLogin } from "./login.js";

const $ = (id) => document.getElementById(id);
const catalog = Object.fromEntries(JSON.parse($("oar-catalog").textContent || "[]").map((p) => [p.id, p]));

const state = { sessions: [], scope: "active", filter: "", inbox: { questions: [], cards: [] }, view: null, name: "OAR" };

let toastTimer = null;
function toast(text) {
  const t = $("toast");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (t.hidden = true), 10_000);
  t.replaceChildren(h("span", {}, text), h("button", { class: "toast-x", type: "button", "aria-label": "Close", onclick: () => (t.hidden = true) }, "×"));
  t.hidden = false;
}

const ctx = {
  catalog,
  state,
  /** An API call whose refusal is shown to the owner in the relay's own words. */
  async call(method, path, body, opts = {}) {
    try {
      return await api(method, path, body);
    } catch (e) {
      if (e.status === 401) return signOut("The relay refused the owner token.");
      if (!opts.quiet) toast(e.message);
      throw e;
    }
  },
  changed({ sessionId, settings } = {}) {
    schedule("list");
    schedule("inbox");
    if (settings) schedule("settings");
    if (!sessionId || sessionId === currentSession()) schedule("detail");
  },
  go(hash) {
    if (location.hash.replace(/^#/, "") === hash) route();
    else location.hash = hash;
  },
};

const currentSession = () => (state.view?.kind === "session" ? state.view.id : null);

// ---- debounced loaders: one fetch at a time per kind, the latest event wins ----
const timers = {};
const running = {};
const again = {};
const jobs = {
  async list() {
    // Pages of 500 (contract §9.1), up to 2,000 entries: the sidebar shows the most recently
    // active; the web helper replaces this with paging as the list scrolls.
    const sessions = [];
    let cursor = null;
    do {
      const r = await ctx.call("GET", `/api/sessions?scope=${state.scope}&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, undefined, { quiet: true });
      sessions.push(...r.sessions);
      cursor = r.nextCursor;
    } while (cursor && sessions.length < 2000);
    state.sessions = sessions;
    drawSidebar();
    if (state.view?.kind === "inbox") state.view.ui.update(state.inbox, state.sessions);
  },
  async detail() {
    const id = currentSession();
    if (!id) return;
    try {
      const d = await ctx.call("GET", `/api/sessions/${encodeURIComponent(id)}`, undefined, { quiet: true });
      if (currentSession() === id) state.view.ui.update(d);
    } catch (e) {
      if (currentSession() === id && e.status === 404) showMessage("No such session", "It was deleted, or the link is wrong.");
    }
  },
  async inbox() {
    const [q, c] = await Promise.all([ctx.call("GET", "/api/inbox", undefined, { quiet: true }), ctx.call("GET", "/api/cards", undefined, { quiet: true })]);
    state.inbox = { questions: q.questions, cards: c.cards };
    const n = q.questions.length + c.cards.length;
    $("inbox-count").textContent = n ? String(n) : "";
    document.title = `${n ? `(${n}) ` : ""}OAR · ${state.name}`;
    if (state.view?.kind === "inbox") state.view.ui.update(state.inbox, state.sessions);
  },
  async settings() {
    if (state.view?.kind !== "settings") return;
    state.view.ui.update(await ctx.call("GET", "/api/settings", undefined, { quiet: true }));
  },
};

function schedule(name, delay = name === "detail" ? 60 : 120) {
  if (timers[name]) return;
  timers[name] = setTimeout(async () => {
    timers[name] = null;
    if (running[name]) {
      again[name] = true;
      return;
    }
    running[name] = true;
    try {
      await jobs[name]();
    } catch {
      // A failed refresh is retried by the next event or reconnect.
    } finally {
      running[name] = false;
      if (again[name]) {
        again[name] = false;
        schedule(name, 0);
      }
    }
  }, delay);
}

function onEvent(e) {
  if (e.type === "turn.progress") {
    if (e.sessionId === currentSession()) schedule("detail");
    return;
  }
  if (e.type === "settings.updated") schedule("settings");
  if (String(e.type).startsWith("card.") || !e.sessionId) schedule("inbox");
  if (e.sessionId === currentSession() || !e.sessionId) schedule("detail");
  if (e.type !== "settings.updated") schedule("list");
}

function setLive(s) {
  const el = $("live");
  el.dataset.state = s;
  el.textContent = s === "open" ? "live" : s === "closed" ? "offline" : "reconnecting…";
  if (s === "open") for (const k of Object.keys(jobs)) schedule(k, 0);
}

// ---- views ----
function drawSidebar() {
  renderSidebar($("session-list"), state.sessions, currentSession(), state.filter);
}

function show(view) {
  state.view = view;
  $("main").replaceChildren(view.ui.el);
  for (const [id, kind] of [["nav-inbox", "inbox"], ["nav-settings", "settings"], ["nav-new", "new"]]) {
    if (view.kind === kind) $(id).setAttribute("aria-current", "page");
    else $(id).removeAttribute("aria-current");
  }
  drawSidebar();
}

function showMessage(title, text) {
  show({ kind: "home", ui: { el: h("section", { class: "panel home" }, h("h2", { class: "panel-title" }, title), h("p", {}, text)) } });
}

function home() {
  const n = state.sessions.length;
  showMessage(`Relay “${state.name}”`, n ? "Pick a session on the left, or start a new one." : "No sessions yet. Start one with New session.");
}

function route() {
  const fromToken = takeTokenFromUrl();
  const p = new URLSearchParams(location.hash.replace(/^#/, ""));
  const session = fromToken ?? p.get("session");
  if (session) {
    if (currentSession() !== session) {
      const ui = new ConversationView(ctx, session);
      show({ kind: "session", id: session, ui });
      ui.focus();
    }
    schedule("detail", 0);
  } else if (p.has("inbox")) {
    show({ kind: "inbox", ui: new InboxView(ctx) });
    state.view.ui.update(state.inbox, state.sessions);
    schedule("inbox", 0);
  } else if (p.has("settings")) {
    const ui = new SettingsView(ctx);
    show({ kind: "settings", ui });
    ui.refreshRelays();
    schedule("settings", 0);
  } else if (p.has("new")) {
    const ui = new NewSessionView(ctx);
    show({ kind: "new", ui });
    ui.focus();
  } else home();
}

let stream = null;
function signOut(why) {
  forgetToken();
  stream?.close();
  stream = null;
  showLogin(why, (token) => {
    setToken(token);
    boot();
  });
  return new Promise(() => {});
}

async function boot() {
  takeTokenFromUrl();
  try {
    const health = await api("GET", "/api/health");
    state.name = health.name;
    $("relay-name").textContent = `${health.name} · ${health.version}`;
    document.title = `OAR · ${health.name}`;
  } catch {}
  if (!getToken()) return signOut("");
  try {
    await api("GET", "/api/settings");
  } catch (e) {
    if (e.status === 401) return signOut("The relay refused the owner token.");
  }
  document.body.classList.remove("signed-out");
  $("app").hidden = false;
  $("login").hidden = true;
  stream = openStream(onEvent, setLive);
  route();
}

window.addEventListener("hashchange", route);
$("filter").addEventListener("input", (e) => {
  state.filter = e.target.value;
  drawSidebar();
});
$("show-archived").addEventListener("change", (e) => {
  state.scope = e.target.checked ? "all" : "active";
  schedule("list", 0);
});
boot();
