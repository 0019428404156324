// The OAR web UI: boot (token from the URL fragment), a hash router (#session=ID, #inbox,
// #settings, #new), live updates over the /api/stream SSE (streamed reply chunks appended
// as they come, other changes as debounced re-fetches of whatever an event says changed),
// what waits for you per session, and opt-in desktop notifications.
import { h } from "./dom.js";
import { api, ApiError, getToken, setToken, forgetToken, takeTokenFromUrl, openStream } from "./api.js";
import { renderSidebar } from "./sidebar.js";
import { ConversationView } from "./conversation.js";
import { InboxView } from "./inbox.js";
import { SettingsView } from "./settings.js";
import { NewSessionView } from "./new-session.js";
import { showLogin } from "./login.js";
import { notify, notifyButton } from "./notify.js";
import { HomeView } from "./home.js";
import { SearchView } from "./search.js";
import { SchedulesView } from "./schedules.js";
import { openSwitcher } from "./switcher.js";
import { setTitleLookup, titlesChanged } from "./titles.js";

const $ = (id) => document.getElementById(id);
const catalog = Object.fromEntries(JSON.parse($("oar-catalog").textContent || "[]").map((p) => [p.id, p]));

const PAGE = 200;
const state = {
  sessions: [],
  scope: "active",
  filter: "",
  inbox: { questions: [], cards: [], notices: [] },
  view: null,
  name: "OAR",
  // Paging (contract §9.1) when the relay answers with nextCursor; else the whole list, drawn a window at a time.
  paged: false,
  nextCursor: null,
  total: 0,
  shown: 100,
  needsOnly: false,
  emptyGroups: [],
  /** Whether the list has been read once: until then nothing says "no sessions". */
  loaded: false,
  /** The open session keeps its place in the list while it is open (re-sorting must not move it away). */
  pin: null,
  /** session id → how many cards and questions wait for you there */
  waiting: new Map(),
  /** list entries of waiting sessions outside the loaded pages */
  extra: new Map(),
};

let toastTimer = null;
function toast(text) {
  const t = $("toast");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (t.hidden = true), 10_000);
  t.replaceChildren(
    h("span", {}, text),
    h("button", { class: "toast-x", type: "button", "aria-label": "Close", onclick: () => (t.hidden = true) }, "×"),
  );
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
  sessions: () => allSessions(),
};

const currentSession = () => (state.view?.kind === "session" ? state.view.id : null);

// ---- debounced loaders: one fetch at a time per kind, the latest event wins ----
const timers = {};
const running = {};
const again = {};
const listQuery = (extra = {}) => {
  const q = new URLSearchParams({ scope: state.scope, limit: String(PAGE), ...extra });
  if (state.paged && state.filter.trim()) q.set("query", state.filter.trim());
  return `/api/sessions?${q}`;
};
const jobs = {
  async list() {
    const want = Math.min(Math.max(PAGE, state.sessions.length), 500);
    const [r, g] = await Promise.all([
      ctx.call("GET", listQuery({ limit: String(want) }), undefined, { quiet: true }),
      ctx.call("GET", "/api/groups", undefined, { quiet: true }).catch(() => ({ groups: [] })),
    ]);
    state.paged = "nextCursor" in r;
    const known = new Set(allSessions().map((s) => s.id));
    state.sessions = r.sessions;
    // Sessions the page did not know that the open conversation names by id: its lines are
    // drawn again with their titles.
    const shown = currentSession() ? JSON.stringify(state.view.ui.data?.messages ?? []) : "";
    if (r.sessions.some((s) => !known.has(s.id) && shown.includes(s.id))) {
      titlesChanged();
      schedule("detail", 0);
    }
    state.nextCursor = r.nextCursor ?? null;
    state.total = r.total ?? r.sessions.length;
    state.emptyGroups = (g.groups ?? []).filter((x) => x.empty);
    state.loaded = true;
    drawSidebar();
    if (state.view?.kind === "inbox") state.view.ui.update(state.inbox, allSessions());
    if (state.view?.kind === "home") state.view.ui.update(state);
  },
  async more() {
    if (!state.paged || !state.nextCursor) return;
    const r = await ctx.call("GET", listQuery({ cursor: state.nextCursor }), undefined, { quiet: true });
    const have = new Set(state.sessions.map((s) => s.id));
    state.sessions = state.sessions.concat(r.sessions.filter((s) => !have.has(s.id)));
    state.nextCursor = r.nextCursor ?? null;
    drawSidebar();
  },
  /** Waiting sessions that are not on a loaded page still show in "Needs you". */
  async extra() {
    const loaded = new Set(state.sessions.map((s) => s.id));
    const missing = [...state.waiting.keys()].filter((id) => !loaded.has(id) && !state.extra.has(id)).slice(0, 20);
    for (const id of missing) {
      const r = await ctx
        .call("GET", `/api/sessions?scope=all&limit=5&query=${encodeURIComponent(id)}`, undefined, { quiet: true })
        .catch(() => null);
      const s = r?.sessions?.find((x) => x.id === id);
      if (s) state.extra.set(id, s);
    }
    if (missing.length) drawSidebar();
  },
  async detail() {
    const id = currentSession();
    if (!id) return;
    try {
      const d = await ctx.call("GET", `/api/sessions/${encodeURIComponent(id)}`, undefined, { quiet: true });
      if (currentSession() === id) state.view.ui.update(d);
    } catch (e) {
      if (currentSession() === id && e.status === 404)
        showMessage("No such session", "It was deleted, or the link is wrong.");
    }
  },
  async inbox() {
    const [q, c] = await Promise.all([
      ctx.call("GET", "/api/inbox", undefined, { quiet: true }),
      ctx.call("GET", "/api/cards", undefined, { quiet: true }),
    ]);
    state.inbox = { questions: q.questions, cards: c.cards, notices: q.notices ?? [] };
    const n = q.questions.length + c.cards.length + state.inbox.notices.length;
    const waiting = new Map();
    for (const x of [...q.questions, ...c.cards]) waiting.set(x.session, (waiting.get(x.session) ?? 0) + 1);
    state.waiting = waiting;
    $("inbox-count").textContent = n ? String(n) : "";
    $("nav-inbox").setAttribute("aria-label", n ? `Inbox, ${n} waiting for you` : "Inbox");
    // The tab title counts what waits for you.
    document.title = `${n ? `(${n}) ` : ""}OAR · ${state.name}`;
    drawSidebar();
    schedule("extra", 0);
    if (state.view?.kind === "inbox") state.view.ui.update(state.inbox, allSessions());
    if (state.view?.kind === "home") state.view.ui.update(state);
  },
  async settings() {
    if (state.view?.kind !== "settings") return;
    // The view asked for, with its ticket: an answer older than a save's is dropped there.
    const ui = state.view.ui;
    const ticket = ui.ask();
    ui.update(await ctx.call("GET", "/api/settings", undefined, { quiet: true }), false, ticket);
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
    } catch (e) {
      // A failed refresh is retried by the next event or reconnect; a page bug is said aloud.
      if (!(e instanceof ApiError)) console.error(e);
    } finally {
      running[name] = false;
      if (again[name]) {
        again[name] = false;
        schedule(name, 0);
      }
    }
  }, delay);
}

const titleOf = (id) => allSessions().find((s) => s.id === id)?.title ?? "a session";
setTitleLookup((id) => allSessions().find((s) => s.id === id)?.title ?? null);

function notifyFor(e) {
  if (e.type === "card.created") {
    const text = e.card?.text ?? "A question waits for your answer.";
    notify({
      title: `Needs you · ${titleOf(e.sessionId)}`,
      body: text,
      tag: `card-${e.cardId}`,
      sessionId: e.sessionId,
      currentSession,
    });
  } else if (e.type === "turn.ended" && e.byOwner) {
    const word = e.status === "done" ? "Finished" : e.status === "stopped" ? "Stopped" : "Failed";
    notify({
      title: `${word} · ${titleOf(e.sessionId)}`,
      body: "The turn you started has ended.",
      tag: `turn-${e.turnId}`,
      sessionId: e.sessionId,
      currentSession,
    });
  }
}

function onEvent(e) {
  if (e.type === "turn.delta") {
    // Appended in place; the session is read again only when the chunk does not continue
    // the text on screen.
    if (e.sessionId === currentSession() && !state.view.ui.delta(e)) schedule("detail");
    return;
  }
  notifyFor(e);
  if (e.type === "turn.started" && e.sessionId === currentSession()) state.view.ui.startTurn(e.turnId);
  if (e.type === "turn.progress") {
    if (e.sessionId === currentSession()) schedule("detail");
    return;
  }
  if (e.type === "settings.updated") schedule("settings");
  if (state.view?.kind === "schedules" && /^(schedule|subscription|session)\./.test(e.type))
    state.view.ui.refreshSoon();
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
function allSessions() {
  const have = new Set(state.sessions.map((s) => s.id));
  return state.sessions.concat([...state.extra.values()].filter((s) => !have.has(s.id)));
}

const sideCtx = {
  redraw: () => drawSidebar(),
  more() {
    if (state.paged && state.nextCursor) schedule("more", 0);
    else {
      state.shown += 100;
      drawSidebar();
    }
  },
  call: (...a) => ctx.call(...a),
  changed: (x) => ctx.changed(x),
};

/** The open session stays where it was when it was opened, whatever its activity does. */
function pinned(sessions) {
  const id = currentSession();
  if (!id) return sessions;
  const i = sessions.findIndex((s) => s.id === id);
  if (i < 0) return sessions;
  if (state.pin?.id !== id) state.pin = { id, index: i };
  if (state.pin.index === i) return sessions;
  const out = sessions.filter((s) => s.id !== id);
  out.splice(Math.min(state.pin.index, out.length), 0, sessions[i]);
  return out;
}

function drawSidebar() {
  const f = state.filter.trim().toLowerCase();
  // Without paging the relay does not filter: the page does.
  const list = allSessions().filter((s) => state.scope === "all" || !s.archived);
  const sessions =
    !state.paged && f
      ? list.filter((s) => `${s.title} ${s.model} ${s.provider} ${s.group?.name ?? ""}`.toLowerCase().includes(f))
      : list;
  const rest = sessions.filter((s) => !state.waiting.get(s.id)).length;
  renderSidebar(
    $("session-list"),
    {
      sessions: pinned(sessions),
      currentId: currentSession(),
      waiting: state.waiting,
      loaded: state.loaded,
      needsOnly: state.needsOnly,
      emptyGroups: f ? [] : state.emptyGroups,
      shown: state.paged ? Infinity : state.shown,
      more: state.paged ? !!state.nextCursor : rest > state.shown,
      filterNote: state.filter.trim(),
    },
    sideCtx,
  );
}

function show(view) {
  state.view = view;
  $("main").replaceChildren(view.ui.el);
  for (const [id, kind] of [
    ["nav-inbox", "inbox"],
    ["nav-settings", "settings"],
    ["nav-new", "new"],
    ["nav-search", "search"],
    ["nav-watch", "schedules"],
  ]) {
    if (view.kind === kind) $(id).setAttribute("aria-current", "page");
    else $(id).removeAttribute("aria-current");
  }
  drawSidebar();
}

function showMessage(title, text) {
  show({
    kind: "message",
    ui: { el: h("section", { class: "panel home" }, h("h2", { class: "panel-title" }, title), h("p", {}, text)) },
  });
}

function home() {
  const ui = new HomeView(ctx);
  show({ kind: "home", ui });
  ui.update(state);
}

function route() {
  // On a phone the list gives the screen back to what was picked.
  document.body.classList.remove("list-open");
  $("list-toggle").setAttribute("aria-expanded", "false");
  const fromToken = takeTokenFromUrl();
  const p = new URLSearchParams(location.hash.replace(/^#/, ""));
  const session = fromToken ?? p.get("session");
  if (session) {
    if (currentSession() !== session) {
      const ui = new ConversationView(ctx, session);
      show({ kind: "session", id: session, ui });
      ui.focus();
    }
    if (p.get("message")) state.view.ui.reveal(p.get("message"));
    schedule("detail", 0);
  } else if (p.has("inbox")) {
    show({ kind: "inbox", ui: new InboxView(ctx) });
    state.view.ui.update(state.inbox, allSessions());
    schedule("inbox", 0);
  } else if (p.has("settings")) {
    const ui = new SettingsView(ctx);
    show({ kind: "settings", ui });
    ui.refreshRelays();
    schedule("settings", 0);
  } else if (p.has("search")) {
    if (state.view?.kind !== "search") show({ kind: "search", ui: new SearchView(ctx) });
    state.view.ui.run(p.get("search") ?? "");
  } else if (p.has("schedules")) {
    const ui = new SchedulesView(ctx);
    show({ kind: "schedules", ui });
    ui.refresh();
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
  // Both at once: the name for the title bar, and whether the token is taken.
  const [health, check] = await Promise.allSettled([
    api("GET", "/api/health"),
    getToken() ? api("GET", "/api/settings") : Promise.resolve(null),
  ]);
  if (health.status === "fulfilled") {
    state.name = health.value.name;
    $("relay-name").textContent = `${health.value.name} · ${health.value.version}`;
    document.title = `OAR · ${health.value.name}`;
  }
  if (!getToken()) return signOut("");
  if (check.status === "rejected" && check.reason?.status === 401) return signOut("The relay refused the owner token.");
  document.body.classList.remove("signed-out");
  $("app").hidden = false;
  $("login").hidden = true;
  stream = openStream(onEvent, setLive);
  route();
}

window.addEventListener("hashchange", route);
// "5 min ago" stays true: the list (and the home) are drawn again each minute.
setInterval(() => {
  if (document.visibilityState !== "visible" || !state.loaded) return;
  drawSidebar();
  if (state.view?.kind === "home") state.view.ui.update(state);
}, 60_000);
let filterTimer = null;
$("filter").addEventListener("input", (e) => {
  state.filter = e.target.value;
  if (!state.paged) return drawSidebar();
  clearTimeout(filterTimer);
  filterTimer = setTimeout(() => schedule("list", 0), 200);
});
$("needs-only").addEventListener("change", (e) => {
  state.needsOnly = e.target.checked;
  drawSidebar();
});
$("nav-notify-slot").replaceWith(notifyButton(api));
$("list-toggle").addEventListener("click", () => {
  const open = document.body.classList.toggle("list-open");
  $("list-toggle").setAttribute("aria-expanded", String(open));
});
$("show-archived").addEventListener("change", (e) => {
  state.scope = e.target.checked ? "all" : "active";
  schedule("list", 0);
});
// Keyboard: Ctrl/⌘-K switches sessions; Esc stops the running turn of the open session.
document.addEventListener("keydown", (e) => {
  if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "k") {
    e.preventDefault();
    openSwitcher(ctx);
    return;
  }
  if (
    e.key === "Escape" &&
    !e.defaultPrevented &&
    !document.querySelector("dialog[open]") &&
    !e.target.closest?.(".conv-title-input, .menu-pop")
  ) {
    if (state.view?.kind === "session" && state.view.ui.running) {
      e.preventDefault();
      state.view.ui.stop();
    }
  }
});
boot();
