// Search: words in messages and questions across every session (GET /api/search, SQLite
// FTS5 on the relay), newest first, a page at a time; the matched words are marked, and a
// hit opens its session at that message.
import { h, icon, fmtTime, badge } from "./dom.js";

const OPEN = "<mark>";
const CLOSE = "</mark>";

/** The snippet as text nodes, the matched words in <mark> (never parsed as markup). */
export function snippetNode(text) {
  const out = [];
  let rest = text;
  for (;;) {
    const i = rest.indexOf(OPEN);
    const j = i < 0 ? -1 : rest.indexOf(CLOSE, i);
    if (i < 0 || j < 0) break;
    out.push(rest.slice(0, i), h("mark", {}, rest.slice(i + OPEN.length, j)));
    rest = rest.slice(j + CLOSE.length);
  }
  out.push(rest);
  return h("span", { class: "hit-snippet" }, out);
}

const ROLE = {
  user: "You",
  agent: "Agent",
  event: "Relay event",
  schedule: "Schedule",
  remote: "Agent on another relay",
  question: "Question",
};

export class SearchView {
  constructor(ctx) {
    this.ctx = ctx;
    this.input = h("input", {
      class: "input search-input",
      type: "search",
      id: "search-q",
      placeholder: "Words from a message or a question…",
      "aria-label": "Search messages and questions",
      autocomplete: "off",
    });
    this.status = h("p", { class: "field-help", role: "status", "aria-live": "polite" });
    this.list = h("ol", { class: "hit-list", "aria-label": "Search results" });
    this.more = h(
      "button",
      { class: "btn btn-small", type: "button", hidden: true, onclick: () => this.page() },
      "More results",
    );
    const form = h(
      "form",
      {
        class: "search-form",
        role: "search",
        onsubmit: (e) => {
          e.preventDefault();
          ctx.go(`search=${encodeURIComponent(this.input.value.trim())}`);
        },
      },
      icon("search"),
      this.input,
      h("button", { class: "btn btn-primary", type: "submit" }, "Search"),
    );
    this.el = h(
      "section",
      { class: "panel search", "aria-labelledby": "search-title" },
      h("h2", { class: "panel-title", id: "search-title" }, "Search"),
      form,
      this.status,
      this.list,
      this.more,
    );
  }

  async run(q) {
    this.input.value = q;
    queueMicrotask(() => this.input.focus());
    this.q = q;
    this.cursor = null;
    this.list.replaceChildren();
    this.more.hidden = true;
    if (!q.trim()) {
      this.status.textContent = "Finds words in every session's messages and questions, newest first.";
      return;
    }
    await this.page();
  }

  async page() {
    const q = this.q;
    this.status.textContent = "Searching…";
    let r;
    try {
      r = await this.ctx.call(
        "GET",
        `/api/search?q=${encodeURIComponent(q)}&limit=25${this.cursor ? `&cursor=${encodeURIComponent(this.cursor)}` : ""}`,
        undefined,
        { quiet: true },
      );
    } catch (e) {
      this.status.textContent = e.message;
      return;
    }
    if (q !== this.q) return;
    this.list.append(...r.hits.map((x) => this.hit(x)));
    this.cursor = r.nextCursor;
    this.more.hidden = !r.nextCursor;
    const n = this.list.children.length;
    this.status.textContent = n
      ? `${n}${r.nextCursor ? "+" : ""} match${n === 1 ? "" : "es"} for “${q}”.`
      : `Nothing matches “${q}”.`;
  }

  hit(x) {
    const target =
      x.kind === "question"
        ? `session=${encodeURIComponent(x.session)}`
        : `session=${encodeURIComponent(x.session)}&message=${encodeURIComponent(x.message)}`;
    return h(
      "li",
      { class: "hit" },
      h(
        "a",
        { class: "hit-link", href: `#${target}`, dataset: { message: x.message } },
        h(
          "span",
          { class: "hit-head" },
          h("strong", { class: "hit-title", title: x.title }, x.title ?? x.session),
          h("span", { class: "field-help" }, ROLE[x.role] ?? x.role),
          x.archived ? badge("archived", "badge-archived") : null,
          h("time", { class: "msg-time", datetime: x.createdAt }, fmtTime(x.createdAt)),
        ),
        snippetNode(x.snippet),
      ),
    );
  }
}
