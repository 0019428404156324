// The Inbox: every pending question across sessions (contract §3 GET /api/inbox), and the
// approval cards waiting anywhere, each answerable right here.
import { h, syncList, fmtTime } from "./dom.js";
import { approvalCard, questionCard } from "./cards.js";

export class InboxView {
  constructor(ctx) {
    this.ctx = ctx;
    this.questions = h("div", { class: "inbox-list", "aria-label": "Questions" });
    this.cards = h("div", { class: "inbox-list", "aria-label": "Approvals" });
    this.notices = h("div", { class: "inbox-list", "aria-label": "Notices" });
    this.qEmpty = h("p", { class: "empty-note" }, "No question waits for you.");
    this.cEmpty = h("p", { class: "empty-note" }, "No approval waits for you.");
    this.el = h(
      "section",
      { class: "panel inbox", "aria-labelledby": "inbox-title" },
      h("h2", { id: "inbox-title", class: "panel-title" }, "Inbox"),
      h("h3", { class: "panel-sub" }, "Questions from agents"),
      this.qEmpty,
      this.questions,
      h("h3", { class: "panel-sub" }, "Approvals"),
      this.cEmpty,
      this.cards,
      this.notices,
    );
  }

  update(inbox, sessions) {
    const title = (id) => sessions.find((s) => s.id === id)?.title ?? id;
    const where = (x) =>
      h(
        "span",
        { class: "card-where" },
        " · in ",
        h("a", { href: `#session=${encodeURIComponent(x.session)}` }, title(x.session)),
        " · ",
        fmtTime(x.createdAt),
      );
    const sig = (x) => JSON.stringify([x, title(x.session)]);
    this.qEmpty.hidden = inbox.questions.length > 0;
    this.cEmpty.hidden = inbox.cards.length > 0;
    syncList(
      this.questions,
      inbox.questions,
      (q) => q.id,
      (q) => questionCard(q, this.ctx, where(q)),
      sig,
    );
    syncList(
      this.cards,
      inbox.cards,
      (c) => c.id,
      (c) => approvalCard(c, this.ctx, where(c)),
      sig,
    );
    syncList(
      this.notices,
      inbox.notices ?? [],
      (n) => n.id,
      (n) => this.notice(n),
    );
  }

  /** A budget's 80 % notice (contract §10.4): read, then dismissed. */
  notice(n) {
    const dismiss = () =>
      this.ctx
        .call("POST", `/api/questions/${encodeURIComponent(n.id)}`, { dismiss: true })
        .then(() => this.ctx.changed({ cards: true }));
    return h(
      "section",
      { class: "card card-notice", role: "group", "aria-label": `Budget notice: ${n.budget}` },
      h("div", { class: "card-kicker" }, "Budget notice · ", fmtTime(n.createdAt)),
      h("p", { class: "card-title" }, n.text),
      h(
        "div",
        { class: "card-actions card-actions-end" },
        h("button", { class: "btn btn-link", type: "button", onclick: dismiss }, "Dismiss"),
      ),
    );
  }
}
