// The Inbox: every pending question across sessions (contract §3 GET /api/inbox), and the
// approval cards waiting anywhere, each answerable right here.
import { h, syncList, fmtTime } from "./dom.js";
import { approvalCard, questionCard } from "./cards.js";

export class InboxView {
  constructor(ctx) {
    this.ctx = ctx;
    this.questions = h("div", { class: "inbox-list", "aria-label": "Questions" });
    this.cards = h("div", { class: "inbox-list", "aria-label": "Approvals" });
    this.qEmpty = h("p", { class: "empty-note" }, "No question waits for you.");
    this.cEmpty = h("p", { class: "empty-note" }, "No approval waits for you.");
    this.el = h("section", { class: "panel inbox", "aria-labelledby": "inbox-title" },
      h("h2", { id: "inbox-title", class: "panel-title" }, "Inbox"),
      h("h3", { class: "panel-sub" }, "Questions from agents"), this.qEmpty, this.questions,
      h("h3", { class: "panel-sub" }, "Approvals"), this.cEmpty, this.cards);
  }

  update(inbox, sessions) {
    const title = (id) => sessions.find((s) => s.id === id)?.title ?? id;
    const where = (x) => h("span", { class: "card-where" }, " · in ", h("a", { href: `#session=${encodeURIComponent(x.session)}` }, title(x.session)), " · ", fmtTime(x.createdAt));
    const sig = (x) => JSON.stringify([x, title(x.session)]);
    this.qEmpty.hidden = inbox.questions.length > 0;
    this.cEmpty.hidden = inbox.cards.length > 0;
    syncList(this.questions, inbox.questions, (q) => q.id, (q) => questionCard(q, this.ctx, where(q)), sig);
    syncList(this.cards, inbox.cards, (c) => c.id, (c) => approvalCard(c, this.ctx, where(c)), sig);
  }
}
