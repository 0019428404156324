// The open conversation: its title bar (state, badges, via agent, group, watching),
// the owner's controls, the messages with the reply in flight, what waits for the owner
// (approval cards, questions), tasks, and the message box.
import { h, syncList } from "./dom.js";
import { messageNode, inFlightNode, agentBody, turnOutcomeNode, questionHistoryNode } from "./messages.js";
import { approvalCard, questionCard, cardOutcome } from "./cards.js";
import { tasksPanel } from "./tasks.js";
import { titleBar } from "./title-bar.js";
import { changesPanel } from "./changes.js";
import { worktreeSection } from "./worktree.js";
import { usageChart } from "./usage-chart.js";
import { titlesVersion } from "./titles.js";

const drafts = new Map();

/** Messages with what happened between them in time order: decided cards and answered
 * questions where they were raised, a stopped turn's marker right after its prompt. */
function timeline(d) {
  const extra = [
    ...d.cards.filter((c) => c.status !== "pending").map((c) => ({ at: c.createdAt, item: c })),
    ...(d.questionHistory ?? []).map((q) => ({
      at: q.createdAt,
      item: { ...q, id: `qh-${q.id}`, historyOf: "question" },
    })),
  ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const stopped = new Map((d.stoppedTurns ?? []).map((t) => [t.messageId, t]));
  const out = [];
  let i = 0;
  for (const m of d.messages) {
    while (i < extra.length && extra[i].at < m.createdAt) out.push(extra[i++].item);
    out.push(m);
    const t = stopped.get(m.id);
    if (t) out.push({ ...t, id: `to-${t.turnId}`, historyOf: "turn" });
  }
  return out.concat(extra.slice(i).map((x) => x.item));
}

const changesSig = (d) =>
  d.messages.map((m) => (m.meta?.activity ?? []).filter((a) => a.diffs?.length).length).join(",") +
  (d.worktree ? `|${JSON.stringify([d.overlaps, d.mergeQueue, d.merges?.[0]?.status, d.lastActivityAt])}` : "");

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
    this.panel = h("div", { class: "side-panel", hidden: true });
    this.scroller = h("div", { class: "conv-scroll" }, this.empty, this.log, this.inflight, this.waiting);
    this.tasks = h("div", { class: "tasks-slot" });
    this.composer = this.buildComposer();
    this.el = h(
      "section",
      { class: "conversation", "aria-labelledby": "conv-title" },
      this.head,
      this.panel,
      this.scroller,
      this.tasks,
      this.composer,
    );
    this.openPanel = null;
    /** The Changes and Usage panels, toggled from the title bar. */
    this.panels = { toggle: (name) => this.togglePanel(name) };
  }

  togglePanel(name) {
    this.openPanel = this.openPanel === name ? null : name;
    this.drawPanel();
    return this.openPanel === name;
  }

  drawPanel() {
    this.panel.hidden = !this.openPanel;
    if (!this.openPanel || !this.data) return this.panel.replaceChildren();
    const close = h(
      "button",
      {
        class: "btn btn-small panel-close",
        type: "button",
        "aria-label": "Close panel",
        onclick: () => {
          this.openPanel = null;
          this.drawPanel();
          this.head.querySelectorAll("[aria-pressed=true]").forEach((b) => {
            b.setAttribute("aria-pressed", "false");
          });
        },
      },
      "Close",
    );
    if (this.openPanel === "changes") {
      // Redrawn only when the files it shows changed, so an open file stays open.
      const sig = changesSig(this.data);
      if (this.panel.dataset.sig === sig && this.panel.dataset.kind === "changes") return;
      this.panel.dataset.sig = sig;
      this.panel.dataset.kind = "changes";
      // A worktree session (contract §10.1) shows its branch, changes, overlaps and merges first.
      this.panel.replaceChildren(
        close,
        ...(this.data.worktree ? [worktreeSection(this.data, this.ctx)] : []),
        changesPanel(this.data),
      );
    } else if (this.panel.dataset.kind !== "usage") {
      this.panel.dataset.kind = "usage";
      this.panel.dataset.sig = "";
      this.panel.replaceChildren(close, usageChart(this.ctx, { session: this.id, title: "Usage of this session" }));
    }
  }

  get running() {
    return this.data?.state === "running_turn";
  }

  /** Esc: stop the running turn. */
  stop() {
    return this.ctx.call("POST", `/api/sessions/${encodeURIComponent(this.id)}/stop`).then(
      () => this.ctx.changed({ sessionId: this.id }),
      () => {},
    );
  }

  /** Opened from a search hit: scroll to that message and mark it for a moment. */
  reveal(messageId) {
    this.revealId = messageId;
    if (this.data) this.doReveal();
  }

  doReveal() {
    const node = this.revealId && this.log.querySelector(`[data-key="${CSS.escape(this.revealId)}"]`);
    if (!node) return;
    this.revealId = null;
    node.scrollIntoView({ block: "center" });
    node.classList.add("is-found");
    setTimeout(() => node.classList.remove("is-found"), 3000);
    this.first = false;
  }

  buildComposer() {
    const input = h("textarea", {
      class: "input composer-input",
      rows: 2,
      placeholder: "Message the agent… (Enter sends, Shift+Enter for a new line)",
      "aria-label": "Message",
      value: drafts.get(this.id) ?? "",
    });
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

  /** A turn started here (turn.started): its chunks can be drawn before the session is read again. */
  startTurn(turnId) {
    if (this.live?.turnId === turnId) return;
    this.live = { turnId, text: "" };
    this.liveNode = inFlightNode({ text: "" }, this.model);
    this.inflight.replaceChildren(this.liveNode);
  }

  /** A streamed chunk (turn.delta). Appends when it continues the text on screen; false
   * when the page must re-read the session (another turn, or a chunk it missed). */
  delta(e) {
    if (!this.live || this.live.turnId !== e.turnId) return false;
    const have = this.live.text.length;
    if (e.offset > have) return false;
    if (e.offset + e.text.length <= have) return true; // already in the text read
    this.live.text += e.text.slice(have - e.offset);
    if (!this.paint) {
      // Chunks that arrive together are drawn once (a timer, not a frame: a hidden or busy
      // tab still keeps its text current).
      this.paint = setTimeout(() => {
        this.paint = null;
        if (!this.live) return;
        if (!this.liveNode) {
          this.liveNode = inFlightNode({ text: "" }, this.model);
          this.inflight.replaceChildren(this.liveNode);
        }
        const nearBottom = this.scroller.scrollHeight - this.scroller.scrollTop - this.scroller.clientHeight < 120;
        this.liveNode.body.replaceChildren(agentBody(this.live.text));
        if (nearBottom) this.scroller.scrollTop = this.scroller.scrollHeight;
      }, 0);
    }
    return true;
  }

  update(d) {
    const nearBottom = this.scroller.scrollHeight - this.scroller.scrollTop - this.scroller.clientHeight < 120;
    this.data = d;
    titleBar(this.head, d, this.ctx, this.panels);
    this.drawPanel();

    this.empty.hidden = d.messages.length > 0 || !!d.inFlight || !!d.archived;
    const render = (x) =>
      x.historyOf === "question"
        ? questionHistoryNode(x)
        : x.historyOf === "turn"
          ? turnOutcomeNode(x)
          : x.role
            ? messageNode(x, this.id)
            : cardOutcome(x);
    // Drawn again when the titles the page knows change (a line names a session by its title).
    const v = titlesVersion();
    syncList(
      this.log,
      timeline(d),
      (x) => x.id,
      render,
      (x) => `${v}:${JSON.stringify(x)}`,
    );
    // The text on screen may already be ahead of this read (chunks that came after it was made).
    const ahead =
      d.inFlight && this.live?.turnId === d.inFlight.turnId && this.live.text.length >= d.inFlight.text.length;
    this.live = d.inFlight ? { turnId: d.inFlight.turnId, text: ahead ? this.live.text : d.inFlight.text } : null;
    const waiting = [
      ...d.cards.filter((c) => c.status === "pending").map((c) => ({ kind: "card", id: c.id, item: c })),
      ...d.pendingQuestions.map((q) => ({ kind: "question", id: q.id, item: q })),
    ];
    // A turn that waits on a card with nothing written yet: the card says it, not an empty bubble.
    const silent = d.inFlight && !this.live.text && waiting.length > 0;
    this.liveNode = d.inFlight && !silent ? inFlightNode({ ...d.inFlight, text: this.live.text }, d.model) : null;
    this.model = d.model;
    this.inflight.replaceChildren(...(this.liveNode ? [this.liveNode] : []));

    syncList(
      this.waiting,
      waiting,
      (w) => w.id,
      (w) => (w.kind === "card" ? approvalCard(w.item, this.ctx) : questionCard(w.item, this.ctx)),
    );

    tasksPanel(this.tasks, d, this.ctx);

    this.composer.hidden = !!d.archived;
    if (d.archived && !this.archivedNote) {
      this.archivedNote = h(
        "p",
        { class: "archived-note", role: "note" },
        "This session is archived. Its history stays here; it takes no new messages until you ",
        h(
          "button",
          {
            class: "btn btn-small",
            type: "button",
            onclick: () =>
              this.ctx.call("POST", `/api/sessions/${encodeURIComponent(this.id)}/unarchive`).then(
                () => this.ctx.changed({ sessionId: this.id, list: true }),
                () => {},
              ),
          },
          "Unarchive",
        ),
        " it.",
      );
      this.composer.after(this.archivedNote);
    } else if (!d.archived && this.archivedNote) {
      this.archivedNote.remove();
      this.archivedNote = null;
    }

    if (this.revealId) this.doReveal();
    if (this.first || nearBottom || this.stickToBottom) this.scroller.scrollTop = this.scroller.scrollHeight;
    this.first = false;
    this.stickToBottom = false;
  }
}
