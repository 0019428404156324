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

/** Every time on the page in one form, the browser's local time: "14:03" today, "3 Mar 14:03" otherwise. */
export function fmtTime(isoText) {
  if (!isoText) return "";
  const d = new Date(isoText);
  if (Number.isNaN(d.getTime())) return "";
  const time = d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return sameDay(d, new Date()) ? time : `${d.toLocaleDateString([], { day: "numeric", month: "short" })} ${time}`;
}

/** "just now", "5 min ago", "3 h ago", "2 days ago"; the exact time goes in a tooltip. */
export function relTime(isoText, now = Date.now()) {
  const t = Date.parse(isoText ?? "");
  if (Number.isNaN(t)) return "";
  const s = Math.round((now - t) / 1000);
  if (s < 45) return s < -45 ? fmtTime(isoText) : "just now";
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const hrs = Math.round(m / 60);
  if (hrs < 24) return `${hrs} h ago`;
  const d = Math.round(hrs / 24);
  return d < 14 ? `${d} day${d === 1 ? "" : "s"} ago` : fmtTime(isoText);
}

/** A <time> that says how long ago, with the exact local time as its tooltip. */
export function agoNode(isoText, cls = "ago") {
  return h("time", { class: cls, datetime: isoText, title: fmtTime(isoText) }, relTime(isoText));
}

const SVG = "http://www.w3.org/2000/svg";
/** An icon from the page's lucide sprite (index.html): decorative, hidden from screen readers. */
export function icon(name, cls = "") {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", `icon${cls ? ` ${cls}` : ""}`);
  svg.setAttribute("aria-hidden", "true");
  const use = document.createElementNS(SVG, "use");
  use.setAttribute("href", `#i-${name}`);
  svg.append(use);
  return svg;
}

/** A button that copies text and says so for a moment. */
export function copyButton(text, label = "Copy") {
  const b = h(
    "button",
    { class: "btn btn-small btn-copy", type: "button", "aria-label": label, title: label },
    icon("copy"),
    h("span", { class: "copy-word" }, "Copy"),
  );
  b.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(typeof text === "function" ? text() : text);
      b.replaceChildren(icon("check"), h("span", { class: "copy-word" }, "Copied"));
    } catch {
      b.replaceChildren(icon("x"), h("span", { class: "copy-word" }, "Copy failed"));
    }
    setTimeout(() => b.replaceChildren(icon("copy"), h("span", { class: "copy-word" }, "Copy")), 1600);
  });
  return b;
}

/** A "○ label" state dot with its meaning also as text for screen readers and tests. */
export const STATE_LABEL = {
  running_turn: "running",
  background_only: "background work",
  idle: "idle",
  failed: "failed",
  waiting: "waiting for you",
};
export function stateDot(state) {
  const label = STATE_LABEL[state] ?? state;
  return h("span", { class: `dot dot-${state}`, title: label, role: "img", "aria-label": `state: ${label}` });
}

/** What went wrong last in a session, in words, or null: its last turn failed, or its
 * last background task did (GET /api/sessions adds lastTurn and failedTask). */
export function failureOf(s) {
  if (s.lastTurn?.status === "error")
    return { kind: "turn", text: `last turn failed${s.lastTurn.error ? `: ${s.lastTurn.error}` : ""}` };
  const t = s.failedTask;
  if (t) {
    return {
      kind: "task",
      text: `task “${t.description || t.taskId}” failed${t.exitCode != null ? ` (exit ${t.exitCode})` : ""}`,
    };
  }
  return null;
}

export function badge(text, cls = "", attrs = {}) {
  return h("span", { class: `badge ${cls}`, ...attrs }, text);
}
