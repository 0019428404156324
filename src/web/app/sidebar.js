// The session list: grouped by session group (a header per group, its head first), each
// entry with its state dot, provider/model and the badges of seed §3.
import { h, badge, stateDot } from "./dom.js";
import { plural } from "./title-bar.js";

/** Orders the flat list (newest activity first) into blocks: a lone session or a group. */
export function blocks(sessions) {
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
  return out;
}

function entry(s, currentId) {
  const current = s.id === currentId;
  return h("li", { class: "sess-item" },
    h("a", { class: `sess${current ? " current" : ""}${s.archived ? " is-archived" : ""}`, href: `#session=${encodeURIComponent(s.id)}`, "aria-current": current ? "page" : null, dataset: { session: s.id } },
      h("span", { class: "sess-row" },
        stateDot(s.state),
        h("span", { class: "sess-title" }, s.title),
        s.archived ? badge("archived", "badge-archived") : null,
        s.watched ? badge("watched", "badge-watched") : null),
      h("span", { class: "sess-meta" }, [s.provider, s.model].filter(Boolean).join(" · ")),
      s.viaAgent ? h("span", { class: "sess-via" }, `via agent · "${s.viaAgent.title ?? s.viaAgent.session}"`) : null,
      s.watching > 0 ? h("span", { class: "sess-watching" }, `watching ${plural(s.watching, "session")}`) : null));
}

export function renderSidebar(list, sessions, currentId, filter) {
  const f = filter.trim().toLowerCase();
  const shown = f ? sessions.filter((s) => `${s.title} ${s.model} ${s.provider} ${s.group?.name ?? ""}`.toLowerCase().includes(f)) : sessions;
  if (!shown.length) {
    list.replaceChildren(h("p", { class: "empty-note" }, f ? "No session matches." : "No sessions yet."));
    return;
  }
  list.replaceChildren(...blocks(shown).map((b) => b.kind === "session"
    ? h("ul", { class: "sess-list" }, entry(b.session, currentId))
    : h("section", { class: "sess-group", role: "group", "aria-label": `Group ${b.name}` },
        h("h3", { class: "group-name" }, h("span", { "aria-hidden": "true" }, "▸ "), b.name, h("span", { class: "group-count" }, String(b.members.length))),
        h("ul", { class: "sess-list" }, b.members.map((s) => entry(s, currentId))))));
}
