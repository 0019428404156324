// Tiny DOM helpers. All text goes in through text nodes / textContent, never innerHTML,
// so nothing a session, an agent or a remote relay writes can become markup.

/** h("button", { class: "x", onclick: fn, "aria-label": "…" }, "text", child…) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v == null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "value") el.value = v;
    else if (k === "checked" || k === "disabled" || k === "selected" || k === "hidden" || k === "required") el[k] = !!v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/**
 * Keeps a container's children in step with a list, keyed by id. A child whose item did not
 * change (same signature) is kept as it is, so focus, half-typed answers and scroll survive
 * the re-fetches that every live event triggers.
 */
export function syncList(container, items, key, render, signature = (x) => JSON.stringify(x)) {
  const old = new Map();
  for (const child of [...container.children]) if (child.dataset.key) old.set(child.dataset.key, child);
  let prev = null;
  for (const item of items) {
    const k = String(key(item));
    const sig = signature(item);
    let node = old.get(k);
    if (!node || node.dataset.sig !== sig) {
      const fresh = render(item);
      fresh.dataset.key = k;
      fresh.dataset.sig = sig;
      if (node) node.replaceWith(fresh);
      node = fresh;
    }
    old.delete(k);
    const want = prev ? prev.nextElementSibling : container.firstElementChild;
    if (want !== node) container.insertBefore(node, want);
    prev = node;
  }
  for (const n of old.values()) n.remove();
}

export function clear(el) {
  el.replaceChildren();
  return el;
}

const sameDay = (a, b) => a.toDateString() === b.toDateString();

/** "14:03" today, "3 Mar 14:03" otherwise. */
export function fmtTime(isoText) {
  if (!isoText) return "";
  const d = new Date(isoText);
  if (Number.isNaN(d.getTime())) return "";
  const time = d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return sameDay(d, new Date()) ? time : `${d.toLocaleDateString([], { day: "numeric", month: "short" })} ${time}`;
}

/** A "○ label" state dot with its meaning also as text for screen readers and tests. */
export const STATE_LABEL = { running_turn: "running", background_only: "background work", idle: "idle" };
export function stateDot(state) {
  const label = STATE_LABEL[state] ?? state;
  return h("span", { class: `dot dot-${state}`, title: label, role: "img", "aria-label": `state: ${label}` });
}

export function badge(text, cls = "", attrs = {}) {
  return h("span", { class: `badge ${cls}`, ...attrs }, text);
}
