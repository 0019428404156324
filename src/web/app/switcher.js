// Ctrl/⌘-K: a session switcher. Type to narrow the list (title, id, folder, provider),
// arrows to move, Enter to open, Esc to close. Sessions the list has not loaded are asked
// of the relay by the same words.
import { h, icon, STATE_LABEL } from "./dom.js";

let open = null;

export function openSwitcher(ctx) {
  if (open) return open.input.focus();
  const input = h("input", {
    class: "input",
    type: "search",
    placeholder: "Go to session…",
    "aria-label": "Go to session",
    autocomplete: "off",
    role: "combobox",
    "aria-expanded": "true",
    "aria-controls": "switch-list",
  });
  const list = h("ul", { class: "switch-list", id: "switch-list", role: "listbox", "aria-label": "Sessions" });
  const dialog = h(
    "dialog",
    { class: "switcher", "aria-label": "Switch session" },
    h("div", { class: "switch-row" }, icon("search"), input),
    list,
    h("p", { class: "field-help" }, "↑ ↓ to move · Enter opens · Esc closes"),
  );
  let items = [];
  let at = 0;
  let asked = 0;
  const draw = () => {
    list.replaceChildren(
      ...items.map((s, i) =>
        h(
          "li",
          {
            role: "option",
            id: `sw-${i}`,
            class: `switch-item${i === at ? " is-at" : ""}`,
            "aria-selected": String(i === at),
            onclick: () => go(s),
          },
          h("span", { class: "sess-title" }, s.title),
          h("span", { class: "field-help" }, [s.provider, STATE_LABEL[s.state] ?? s.state].join(" · ")),
        ),
      ),
    );
    if (items.length) input.setAttribute("aria-activedescendant", `sw-${at}`);
    else list.append(h("li", { class: "empty-note" }, "No session matches."));
  };
  const filter = async () => {
    const q = input.value.trim().toLowerCase();
    const local = ctx
      .sessions()
      .filter((s) => !q || `${s.title} ${s.id} ${s.cwd ?? ""} ${s.provider}`.toLowerCase().includes(q));
    items = local.slice(0, 12);
    at = 0;
    draw();
    if (q && items.length < 12) {
      const mine = ++asked;
      const r = await ctx
        .call("GET", `/api/sessions?scope=all&limit=12&query=${encodeURIComponent(q)}`, undefined, { quiet: true })
        .catch(() => null);
      if (mine !== asked || !r) return;
      const have = new Set(items.map((s) => s.id));
      items = items.concat(r.sessions.filter((s) => !have.has(s.id))).slice(0, 12);
      draw();
    }
  };
  const close = () => {
    dialog.close();
    dialog.remove();
    open = null;
  };
  const go = (s) => {
    close();
    ctx.go(`session=${encodeURIComponent(s.id)}`);
  };
  input.addEventListener("input", filter);
  input.addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (!items.length) return;
      at = (at + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length;
      draw();
    } else if (e.key === "Enter") {
      e.preventDefault();
      if (items[at]) go(items[at]);
    }
  });
  dialog.addEventListener("close", () => {
    dialog.remove();
    open = null;
  });
  document.body.append(dialog);
  dialog.showModal();
  open = { input };
  filter();
  input.focus();
}
