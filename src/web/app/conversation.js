// The open conversation: its title bar (state, badges, via agent, group, watching),
// the owner's controls, the messages with the reply in flight, what waits for the owner
// (approval cards, questions), tasks, and the message box.
import { h, syncList } from "./dom.js";
import { messageNode, inFlightNode } from "./messages.js";
import { approvalCard, questionCard, cardOutcome } from "./cards.js";
import { tasksPanel } from "./tasks.js";
import { titleBar } from "./title-bar.js";

const drafts = new Map();

/** Messages with the decided cards placed where they were raised (after the messages before them). */
function timeline(d) {
  const decided = d.cards.filter((c) => c.status !== "pending");
  if (!decided.length) return d.messages;
  const out = [];
  let i = 0;
  for (const m of d.messages) {
    while (i < decided.length && decided[i].createdAt < m.createdAt) out.push(decided[i++]);
    out.push(m);
  }
  return out.concat(decided.slice(i));
}

export class ConversationView {
  constructor(ctx, id) {
    this.ctx = ctx;
    this.id = id;
    this.first = true;
    this.head = h("header", { class: "conv-head" });
    this.log = h("div", { class: "messages", role: "log", "aria-label": "Messages", "aria-live": "polite" });
    this.inflight = h("div", { class: "inflight-slot" });
    this.waiting = h("div", { class: "waiting", "aria-label": "Waiting for you" });
    this.empty = h("p", { class: "empty-note" }, "No messages yet. Write the first one below.");
    this.scroller = h("div", { class: "conv-scroll" }, this.empty, this.log, this.inflight, this.waiting);
    this.tasks = h("div", { class: "tasks-slot" });
    this.composer = this.buildComposer();
    this.el = h("section", { class: "conversation", "aria-labelledby": "conv-title" }, this.head, this.scroller, this.tasks, this.composer);
  }

  buildComposer() {
    const input = h("textarea", { class: "input composer-input", rows: 2, placeholder: "Message the agent… (Enter sends, Shift+Enter for a new line)", "aria-label": "Message", value: drafts.get(this.id) ?? "" });
    const send = h("button", { class: "btn btn-primary", type: "submit" }, "Send");
    const form = h("form", { class: "composer", "aria-label": "Send a message" }, input, send);
    input.addEventListener("input", () => drafts.set(this.id, input.value));
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        form.requestSubmit();
      }
    });
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const text = input.value;
      if (!text.trim()) return;
      send.disabled = true;
      try {
        await this.ctx.call("POST", `/api/sessions/${encodeURIComponent(this.id)}/messages`, { text });
        input.value = "";
        drafts.delete(this.id);
        this.stickToBottom = true;
        this.ctx.changed({ sessionId: this.id });
      } catch {
        // ctx.call already showed the relay's reason; the text stays in the box.
      } finally {
        send.disabled = false;
        input.focus();
      }
    });
    this.input = input;
    return form;
  }

  focus() {
    this.input.focus();
  }

  update(d) {
    const nearBottom = this.scroller.scrollHeight - this.scroller.scrollTop - this.scroller.clientHeight < 120;
    titleBar(this.head, d, this.ctx);

    this.empty.hidden = d.messages.length > 0 || !!d.inFlight;
    syncList(this.log, timeline(d), (x) => x.id, (x) => (x.status ? cardOutcome(x) : messageNode(x)));
    this.inflight.replaceChildren(...(d.inFlight ? [inFlightNode(d.inFlight, d.model)] : []));

    const waiting = [
      ...d.cards.filter((c) => c.status === "pending").map((c) => ({ kind: "card", id: c.id, item: c })),
      ...d.pendingQuestions.map((q) => ({ kind: "question", id: q.id, item: q })),
    ];
    syncList(this.waiting, waiting, (w) => w.id, (w) => (w.kind === "card" ? approvalCard(w.item, this.ctx) : questionCard(w.item, this.ctx)));

    tasksPanel(this.tasks, d, this.ctx);

    this.composer.hidden = !!d.archived;
    if (d.archived && !this.archivedNote) {
      this.archivedNote = h("p", { class: "archived-note", role: "note" }, "This session is archived. Its history stays here; it takes no new messages.");
      this.composer.after(this.archivedNote);
    } else if (!d.archived && this.archivedNote) {
      this.archivedNote.remove();
      this.archivedNote = null;
    }

    if (this.first || nearBottom || this.stickToBottom) this.scroller.scrollTop = this.scroller.scrollHeight;
    this.first = false;
    this.stickToBottom = false;
  }
}
