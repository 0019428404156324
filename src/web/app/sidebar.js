// The session list: sessions waiting for you first (their own badge, not the running dot),
// then the rest newest first, grouped by session group (a header per group that folds, with
// rename, dissolve and move up/down), each entry with its state and the badges of seed §3.
// Only the first pages are drawn; more come as the list scrolls (or "Show more").
import { h, badge, STATE_LABEL, failureOf, agoNode, icon } from "./dom.js";
import { plural } from "./title-bar.js";

const COLLAPSED = "oar.collapsedGroups";
const ORDER = "oar.groupOrder";
const readSet = (k) => new Set(JSON.parse(localStorage.getItem(k) || "[]"));
const collapsed = readSet(COLLAPSED);
let order = JSON.parse(localStorage.getItem(ORDER) || "[]");

/** Orders the flat list (newest activity first) into blocks: a lone session or a group. */
export function blocks(sessions, emptyGroups = []) {
  const out = [];
  const groups = new Map();
  for (const s of sessions) {
    if (!s.group) {
      out.push({ kind: "session", session: s });
      continue;
    }
    let g = groups.get(s.group.id);
    if (!g) {
      g = { kind: "group", id: s.group.id, name: s.group.name, members: [] };
      groups.set(s.group.id, g);
      out.push(g);
    }
    g.members.push(s);
  }
  for (const g of groups.values()) g.members.sort((a, b) => (b.group.role === "head") - (a.group.role === "head"));
  // Groups the owner made that hold no session yet: "group · empty", after the rest.
  for (const g of emptyGroups)
    if (!groups.has(g.id)) out.push({ kind: "group", id: g.id, name: g.name, members: [], empty: true });
  // The owner's order of groups: groups keep the places groups hold, in the chosen order.
  const slots = out.map((b, i) => (b.kind === "group" ? i : -1)).filter((i) => i >= 0);
  const rank = (g) => {
    const r = order.indexOf(g.id);
    return r < 0 ? order.length + slots.indexOf(out.indexOf(g)) : r;
  };
  const sorted = slots.map((i) => out[i]).sort((a, b) => rank(a) - rank(b));
  slots.forEach((slot, k) => {
    out[slot] = sorted[k];
  });
  return out;
}

const WHO = { user: "You", agent: "Agent", event: "Event", schedule: "Schedule", remote: "Agent" };

function entry(s, currentId, waiting) {
  const current = s.id === currentId;
  const waits = waiting.get(s.id) ?? 0;
  const failed = failureOf(s);
  // What the dot says: waiting for you first, then a failure, then what it is doing.
  const state = waits ? "waiting" : s.state === "idle" && failed ? "failed" : s.state;
  const label = waits ? `waiting for you (${waits})` : (STATE_LABEL[state] ?? state);
  const line =
    failed && !waits
      ? h("span", { class: "sess-fail" }, icon("triangle-alert"), failed.text)
      : s.preview?.text
        ? h("span", { class: "sess-preview" }, `${WHO[s.preview.role] ?? "Agent"}: ${s.preview.text}`)
        : null;
  const meta = [
    s.provider,
    s.model,
    waits || state === "idle" || state === "failed" ? null : (STATE_LABEL[state] ?? state),
  ]
    .filter(Boolean)
    .join(" · ");
  return h(
    "li",
    { class: "sess-item" },
    h(
      "a",
      {
        class: `sess${current ? " current" : ""}${s.archived ? " is-archived" : ""}${waits ? " is-waiting" : ""}${state === "failed" ? " is-failed" : ""}`,
        href: `#session=${encodeURIComponent(s.id)}`,
        "aria-current": current ? "page" : null,
        dataset: { session: s.id, state },
        title: [s.title, failed?.text, s.preview?.text].filter(Boolean).join("\n"),
      },
      h(
        "span",
        { class: "sess-row" },
        h("span", { class: `dot dot-${state}`, role: "img", "aria-label": `state: ${label}`, title: label }),
        h("span", { class: "sess-title" }, s.title),
        s.lastActivityAt ? agoNode(s.lastActivityAt, "sess-ago") : null,
      ),
      line,
      // The state in words too, not only the dot's colour; badges under the title, so it keeps its room.
      h(
        "span",
        { class: "sess-meta" },
        waits ? badge(`needs you${waits > 1 ? ` · ${waits}` : ""}`, "badge-needs") : null,
        state === "failed" ? badge("failed", "badge-failed") : null,
        s.archived ? badge("archived", "badge-archived") : null,
        s.watched ? badge("watched", "badge-watched") : null,
        h("span", { class: "sess-meta-text" }, meta),
      ),
      s.viaAgent ? h("span", { class: "sess-via" }, `via agent · "${s.viaAgent.title ?? s.viaAgent.session}"`) : null,
      s.watching > 0 ? h("span", { class: "sess-watching" }, `watching ${plural(s.watching, "session")}`) : null,
    ),
  );
}

function groupBlock(b, currentId, waiting, ctx, ids) {
  const open = !collapsed.has(b.id);
  const listId = `grp-list-${b.id}`;
  const toggle = h(
    "button",
    {
      class: "group-toggle",
      type: "button",
      "aria-expanded": String(open),
      "aria-controls": listId,
      "aria-label": `${open ? "Fold" : "Open"} group ${b.name}`,
    },
    h("span", { "aria-hidden": "true" }, open ? "▾" : "▸"),
  );
  toggle.addEventListener("click", () => {
    if (collapsed.has(b.id)) collapsed.delete(b.id);
    else collapsed.add(b.id);
    localStorage.setItem(COLLAPSED, JSON.stringify([...collapsed]));
    ctx.redraw();
  });
  const waits = b.members.reduce((n, s) => n + (waiting.get(s.id) ?? 0), 0);
  const move = (dir) => {
    const i = ids.indexOf(b.id);
    const j = i + dir;
    if (i < 0 || j < 0 || j >= ids.length) return;
    const next = [...ids];
    [next[i], next[j]] = [next[j], next[i]];
    order = next;
    localStorage.setItem(ORDER, JSON.stringify(order));
    ctx.redraw();
    document.querySelector(`[data-group-menu="${b.id}"] summary`)?.focus();
  };
  const rename = async () => {
    const name = prompt(`New name for group “${b.name}”`, b.name);
    if (name?.trim() && name.trim() !== b.name)
      await ctx.call("PATCH", `/api/groups/${encodeURIComponent(b.id)}`, { name: name.trim() }).then(
        () => ctx.changed({ list: true }),
        () => {},
      );
  };
  const dissolve = async () => {
    if (confirm(`Dissolve group “${b.name}”? Its sessions stay, ungrouped.`))
      await ctx.call("DELETE", `/api/groups/${encodeURIComponent(b.id)}`).then(
        () => ctx.changed({ list: true }),
        () => {},
      );
  };
  const menu = h(
    "details",
    { class: "group-menu", dataset: { groupMenu: b.id } },
    h("summary", { "aria-label": `Group ${b.name} actions`, title: "Group actions" }, icon("ellipsis")),
    h(
      "div",
      { class: "menu" },
      h("button", { type: "button", class: "btn btn-small", onclick: rename }, "Rename"),
      h(
        "button",
        { type: "button", class: "btn btn-small", onclick: () => move(-1), disabled: ids.indexOf(b.id) <= 0 },
        "Move up",
      ),
      h(
        "button",
        {
          type: "button",
          class: "btn btn-small",
          onclick: () => move(1),
          disabled: ids.indexOf(b.id) >= ids.length - 1,
        },
        "Move down",
      ),
      h("button", { type: "button", class: "btn btn-small btn-danger-quiet", onclick: dissolve }, "Dissolve"),
    ),
  );
  return h(
    "section",
    { class: `sess-group${open ? "" : " is-collapsed"}`, role: "group", "aria-label": `Group ${b.name}` },
    h(
      "h3",
      { class: "group-name" },
      toggle,
      h("span", { class: "group-title", title: b.name }, b.name),
      b.empty ? h("span", { class: "group-empty" }, "· empty") : null,
      waits && !open ? badge(`needs you · ${waits}`, "badge-needs") : null,
      h(
        "span",
        { class: "group-count", "aria-label": `${plural(b.members.length, "session")}` },
        String(b.members.length),
      ),
      menu,
    ),
    open && b.members.length
      ? h(
          "ul",
          { class: "sess-list", id: listId },
          b.members.map((s) => entry(s, currentId, waiting)),
        )
      : null,
  );
}

/**
 * list: the nav element; view: { sessions, currentId, waiting: Map(id → n), needsOnly,
 * emptyGroups, shown, more, filterNote (the filter's text, when one is typed) }; ctx: { redraw, more, call, changed }.
 */
export function renderSidebar(list, view, ctx) {
  const { sessions, currentId, waiting, needsOnly } = view;
  const waitingFirst = sessions.filter((s) => waiting.get(s.id));
  const rest = needsOnly ? [] : sessions.filter((s) => !waiting.get(s.id)).slice(0, view.shown);
  const nodes = [];
  if (waitingFirst.length) {
    nodes.push(
      h(
        "section",
        { class: "needs-block", "aria-label": "Waiting for you" },
        h(
          "h3",
          { class: "needs-title" },
          h("span", { "aria-hidden": "true" }, "● "),
          `Needs you · ${waitingFirst.length}`,
        ),
        h(
          "ul",
          { class: "sess-list" },
          waitingFirst.map((s) => entry(s, currentId, waiting)),
        ),
      ),
    );
  }
  const bl = blocks(rest, needsOnly ? [] : (view.emptyGroups ?? []));
  const ids = bl.filter((b) => b.kind === "group").map((b) => b.id);
  for (const b of bl)
    nodes.push(
      b.kind === "session"
        ? h("ul", { class: "sess-list" }, entry(b.session, currentId, waiting))
        : groupBlock(b, currentId, waiting, ctx, ids),
    );
  if (!nodes.length) {
    // A filter that matches no title, id or folder may be a word from a message: one click searches for it.
    const searchIt =
      view.filterNote &&
      h(
        "a",
        { class: "filter-search", href: `#search=${encodeURIComponent(view.filterNote)}` },
        `Search messages and questions for “${view.filterNote}”`,
      );
    nodes.push(
      h(
        "p",
        { class: "empty-note" },
        ...(!view.loaded
          ? ["Loading sessions…"]
          : needsOnly
            ? ["Nothing waits for you."]
            : searchIt
              ? ["No session in the list matches. ", searchIt]
              : ["No sessions yet."]),
      ),
    );
  }
  if (!needsOnly && view.more) {
    const more = h(
      "button",
      { class: "btn btn-small list-more", type: "button", onclick: () => ctx.more() },
      "Show more",
    );
    nodes.push(h("div", { class: "list-more-row" }, more));
    if ("IntersectionObserver" in window) {
      const io = new IntersectionObserver(
        (es) => {
          if (es.some((e) => e.isIntersecting)) {
            io.disconnect();
            ctx.more();
          }
        },
        { root: list },
      );
      queueMicrotask(() => io.observe(more));
    }
  }
  // Keep focus where it was across a redraw (a live event must not steal the keyboard).
  const focused =
    document.activeElement && list.contains(document.activeElement) ? document.activeElement.dataset?.session : null;
  list.replaceChildren(...nodes);
  if (focused) list.querySelector(`a.sess[data-session="${CSS.escape(focused)}"]`)?.focus();
}
