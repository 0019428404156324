// The conversation's title bar: title, state, badges (seed §3: `via agent · "title"`,
// `watching N sessions`, `watched`), its group, subscriptions and schedules, and the
// owner's controls. Rebuilt on each update except the controls, which keep focus.
import { h, badge, stateDot, STATE_LABEL, failureOf, icon } from "./dom.js";
import { usageText } from "./activity.js";
import { scheduleForm, watchForm, scheduleLine } from "./schedules.js";

/** The session's tokens and cost, summed over the replies that reported them. */
function sessionUsage(d) {
  const sum = {};
  let any = false;
  for (const m of d.messages ?? []) {
    const u = m.meta?.usage;
    if (!u) continue;
    any = true;
    for (const k of ["inputTokens", "outputTokens", "cachedTokens", "costUsd"])
      if (u[k] != null) sum[k] = (sum[k] ?? 0) + Number(u[k]);
  }
  return any ? usageText(sum) : "";
}

export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function viaAgentLink(via) {
  return h(
    "a",
    { class: "via-agent", href: `#session=${encodeURIComponent(via.session)}` },
    `via agent · "${via.title ?? via.session}"`,
  );
}

const waitingCount = (d) =>
  (d.cards ?? []).filter((c) => c.status === "pending").length + (d.pendingQuestions ?? []).length;

/** What the session is doing, in words: waiting for you, running, failed (and why), idle. */
function stateWords(d) {
  const waits = waitingCount(d);
  if (waits) return { state: "waiting", text: `waiting for you (${waits})` };
  const failed = failureOf(d);
  if (d.state === "idle" && failed) return { state: "failed", text: failed.text };
  return { state: d.state, text: STATE_LABEL[d.state] ?? d.state };
}

export function titleBar(head, d, ctx, panels) {
  if (head.dataset.session !== d.id) {
    head.dataset.session = d.id;
    head.controls = controls(d, ctx, panels);
    head.info = h("div", { class: "conv-info" });
    head.replaceChildren(head.info, head.controls.el);
  }
  head.controls.update(d);
  const st = stateWords(d);
  head.info.replaceChildren(
    ...[
      h(
        "div",
        { class: "conv-title-row" },
        stateDot(st.state),
        h(
          "h2",
          {
            class: "conv-title",
            id: "conv-title",
            title: `${d.title} (double-click to rename)`,
            ondblclick: () => rename(head, d, ctx),
          },
          d.title,
        ),
        h(
          "span",
          { class: `state-text state-${st.state}`, title: st.text },
          st.state === "failed" ? icon("triangle-alert") : null,
          st.text,
        ),
        waitingCount(d) ? badge(`needs you · ${waitingCount(d)}`, "badge-needs") : null,
        d.archived ? badge("archived", "badge-archived") : null,
        agentStartBadge(d),
        d.watched ? badge("watched", "badge-watched", { title: "Another conversation watches this one" }) : null,
        d.watching > 0 ? badge(`watching ${plural(d.watching, "session")}`, "badge-watching") : null,
        // A worktree session (contract §10.1): its branch, and a mark while it overlaps another.
        d.worktree
          ? badge(`⎇ ${d.worktree.branch}`, "badge-branch", {
              title: `Worktree of ${d.worktree.repo}, from ${d.worktree.base}`,
            })
          : null,
        d.overlaps?.length
          ? badge(`overlap · ${d.overlaps.length}`, "badge-overlap", {
              title: d.overlaps.map((o) => `${o.title ?? o.mainFolder ?? o.session}: ${o.paths.join(", ")}`).join("\n"),
            })
          : null,
      ),
      h(
        "div",
        { class: "conv-sub" },
        d.viaAgent ? viaAgentLink(d.viaAgent) : null,
        h("span", {}, [d.provider, d.model, d.effort].filter(Boolean).join(" · ")),
        h("span", { class: "conv-cwd", title: "Folder" }, d.cwd),
        sessionUsage(d)
          ? h("span", { class: "conv-usage", title: "Tokens and cost of this session" }, `Σ ${sessionUsage(d)}`)
          : null,
      ),
      groupLine(d),
      watchLine(d, ctx),
    ].filter(Boolean),
  );
}

/** How the session's agent process last started (agentStart): a badge when it was started again
 * (`resumed`, `fresh`) or when its start has a note (any start: e.g. relay_tool was not
 * available), the note whole in the badge's title and its first clause on a `new` start's badge. */
function agentStartBadge(d) {
  const a = d.agentStart;
  const note = typeof a?.note === "string" && a.note.trim() ? a.note.trim() : "";
  if (a?.how === "resumed")
    return badge("resumed", "badge-resumed", {
      title: `Its agent process was started again and continued the conversation${note ? `: ${note}` : ""}`,
    });
  if (a?.how === "fresh")
    return badge("fresh start", "badge-fresh", {
      title: `Its agent process was started again on a blank conversation${note ? `: ${note}` : ""}`,
    });
  if (note) return badge(shortNote(note), "badge-start-note", { title: `When its agent process started: ${note}` });
  return null;
}

/** A note's first clause (up to its first colon, semicolon or stop), at most 48 characters. */
function shortNote(note) {
  const head = note.split(/[:;]\s|\.\s/)[0].trim() || note;
  return head.length > 48 ? `${head.slice(0, 47).trimEnd()}…` : head;
}

function groupLine(d) {
  if (!d.group) return null;
  const members = d.group.members ?? [];
  return h(
    "div",
    { class: "conv-group" },
    h(
      "span",
      { class: "conv-group-name" },
      `Group “${d.group.name}”${d.group.role === "head" ? " · this conversation leads it" : ""}${members.length ? ":" : ""}`,
    ),
    members.length
      ? h(
          "span",
          { class: "conv-members" },
          members.map((m) =>
            h(
              "a",
              { class: "member", href: `#session=${encodeURIComponent(m.id)}` },
              stateDot(m.state),
              m.title,
              m.archived ? " (archived)" : "",
            ),
          ),
        )
      : null,
  );
}

/** Subscriptions and schedules, when the relay reports them with the session. */
function watchLine(d, ctx) {
  const subs = Array.isArray(d.subscriptions) ? d.subscriptions.filter((s) => s.active !== false) : [];
  const scheds = Array.isArray(d.schedules) ? d.schedules.filter((s) => s.active !== false) : [];
  if (!subs.length && !scheds.length) return null;
  const del = (path) =>
    ctx.call("DELETE", path).then(
      () => ctx.changed({ sessionId: d.id }),
      () => {},
    );
  return h(
    "div",
    { class: "conv-watch" },
    subs.map((s) => {
      const list = Array.isArray(s.sessions) ? s.sessions : null;
      const name = s.sessions === "all" ? "all sessions" : list ? list.map((x) => x.title ?? x.id).join(", ") : s.id;
      const what = [
        s.events?.length ? s.events.join(", ") : null,
        s.once ? "once" : null,
        s.digestMinutes ? `digest ${s.digestMinutes} min` : null,
      ]
        .filter(Boolean)
        .join(" · ");
      return h(
        "span",
        { class: "chip", role: "group", "aria-label": `Subscription to ${name}` },
        icon("eye"),
        name,
        what ? h("span", { class: "chip-meta" }, ` · ${what}`) : null,
        h(
          "button",
          {
            class: "chip-x",
            type: "button",
            "aria-label": `Unsubscribe from ${name}`,
            onclick: () => del(`/api/subscriptions/${encodeURIComponent(s.id)}`),
          },
          "Unsubscribe",
        ),
      );
    }),
    scheds.map((s) =>
      h(
        "span",
        { class: "chip", role: "group", "aria-label": `Schedule ${s.title}` },
        icon("alarm-clock"),
        s.title,
        h(
          "span",
          { class: "chip-meta" },
          ` · ${scheduleLine(s)}`,
          s.setBy === "owner"
            ? " · set by you"
            : s.setBy && s.setBy.id !== d.id
              ? ` · set by ${s.setBy.title ?? s.setBy.id}`
              : "",
          s.session && s.session.id !== d.id ? ` · into ${s.session.title ?? s.session.id}` : "",
        ),
        h(
          "button",
          {
            class: "chip-x",
            type: "button",
            "aria-label": `Cancel schedule ${s.title}`,
            onclick: () => del(`/api/schedules/${encodeURIComponent(s.id)}`),
          },
          "Cancel",
        ),
      ),
    ),
  );
}

function rename(head, d, ctx) {
  const input = h("input", {
    class: "input conv-title-input",
    value: d.title,
    "aria-label": "Session title",
    maxlength: 200,
  });
  const title = head.querySelector(".conv-title");
  title.replaceWith(input);
  input.focus();
  input.select();
  let done = false;
  const finish = async (save) => {
    if (done) return;
    done = true;
    const t = input.value.trim();
    if (save && t && t !== d.title)
      await ctx.call("PATCH", `/api/sessions/${encodeURIComponent(d.id)}`, { title: t }).catch(() => {});
    ctx.changed({ sessionId: d.id, list: true, force: true });
  };
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") finish(true);
    if (e.key === "Escape") finish(false);
  });
  input.addEventListener("blur", () => finish(true));
}

/** A button that opens a small pop-over (the ⏰ and 👁 menus). */
function popover(label, iconName, build) {
  const pop = h("div", { class: "menu-pop", role: "dialog", "aria-label": label, hidden: true });
  const btn = h(
    "button",
    { class: "btn", type: "button", "aria-expanded": "false", title: label },
    icon(iconName),
    h("span", { class: "btn-word" }, label),
  );
  const close = () => {
    pop.hidden = true;
    btn.setAttribute("aria-expanded", "false");
  };
  btn.addEventListener("click", () => {
    const opening = pop.hidden;
    pop.hidden = !opening;
    btn.setAttribute("aria-expanded", String(opening));
    if (opening) {
      pop.replaceChildren(build(close));
      pop.querySelector("input, textarea, select")?.focus();
    }
  });
  pop.addEventListener("keydown", (e) => {
    if (e.key === "Escape") {
      e.preventDefault();
      close();
      btn.focus();
    }
  });
  return { el: h("span", { class: "pop-wrap" }, btn, pop), btn, close };
}

function controls(d0, ctx, panels) {
  const id = d0.id;
  const path = `/api/sessions/${encodeURIComponent(id)}`;
  const patch = (body) =>
    ctx.call("PATCH", path, body).then(
      () => ctx.changed({ sessionId: id, list: true }),
      () => ctx.changed({ sessionId: id, force: true }),
    );
  const post = (what) =>
    ctx.call("POST", `${path}/${what}`).then(
      () => ctx.changed({ sessionId: id, list: true }),
      () => {},
    );

  const mode = h(
    "select",
    { class: "input", "aria-label": "Relay mode", onchange: () => patch({ mode: mode.value }) },
    ["agent", "ask", "plan"].map((m) => h("option", { value: m }, m)),
  );
  const model = h("select", { class: "input", "aria-label": "Model", onchange: () => patch({ model: model.value }) });
  const may = h("input", {
    type: "checkbox",
    role: "switch",
    id: `may-${id}`,
    onchange: () => patch({ mayCreateSessions: may.checked }),
  });
  const stop = h(
    "button",
    { class: "btn btn-stop", type: "button", title: "Stop the running turn (Esc)", onclick: () => post("stop") },
    icon("square"),
    "Stop",
  );
  const kill = h(
    "button",
    {
      class: "btn",
      type: "button",
      title: "End the agent process now; the next turn starts a fresh one",
      onclick: () => post("kill"),
    },
    icon("power"),
    "Kill session",
  );
  const archive = h(
    "button",
    {
      class: "btn",
      type: "button",
      title: "Archive: it leaves the list and takes no messages until you unarchive it",
      onclick: () => post("archive"),
    },
    icon("archive"),
    "Archive",
  );
  const unarchive = h(
    "button",
    { class: "btn", type: "button", title: "Bring it back: it takes messages again", onclick: () => post("unarchive") },
    icon("archive-restore"),
    "Unarchive",
  );
  // Claude Cloud works on a clone: its branch goes back to the repository when you push it.
  const push =
    d0.provider === "claude-cloud"
      ? h(
          "button",
          {
            class: "btn",
            type: "button",
            title: `Push branch ${d0.branch ?? ""} to ${d0.repo ?? "the repository"}`,
            onclick: async () => {
              push.disabled = true;
              const said = await ctx.call("POST", `${path}/push`).then(
                (r) => {
                  // Push sends commits only: files the agent changed without committing stay behind.
                  const left = r.uncommitted
                    ? `${r.uncommitted} changed file${r.uncommitted === 1 ? "" : "s"} not committed`
                    : "";
                  push.title = left
                    ? `${left}: ask the agent to commit them, then push again`
                    : `Push branch ${d0.branch ?? ""} to ${d0.repo ?? "the repository"}`;
                  const said = r.pushed ? `Pushed ${r.commits} commit${r.commits === 1 ? "" : "s"}` : "Nothing to push";
                  return left ? `${said} (${left})` : said;
                },
                (e) => {
                  push.title = e.message;
                  return "Push failed";
                },
              );
              push.textContent = said;
              setTimeout(() => {
                push.textContent = "Push";
                push.disabled = false;
              }, 4000);
            },
          },
          "Push",
        )
      : null;
  const del = h(
    "button",
    {
      class: "btn btn-danger-quiet",
      type: "button",
      onclick: async () => {
        if (!confirm("Delete this session and its history?")) return;
        await ctx.call("DELETE", path).then(
          () => ctx.go(""),
          () => {},
        );
      },
    },
    icon("trash-2"),
    "Delete",
  );
  const sched = popover("Schedule", "alarm-clock", (close) => scheduleForm(ctx, id, close));
  const watch = popover("Watch", "eye", (close) => watchForm(ctx, id, close));
  const panel = (name, label, iconName) => {
    const b = h(
      "button",
      {
        class: "btn",
        type: "button",
        "aria-pressed": "false",
        title: label,
        onclick: () => b.setAttribute("aria-pressed", String(panels?.toggle(name) ?? false)),
      },
      icon(iconName),
      h("span", { class: "btn-word" }, label),
    );
    return b;
  };
  const changes = panel("changes", "Changes", "file-diff");
  const usage = panel("usage", "Usage", "chart-column");
  // On a phone the rest folds behind More; Stop stays in reach. Another session opens with
  // More folded (the open state is the body's, so it would otherwise carry over, unfolded
  // under a More button that says it is closed).
  document.body.classList.remove("more-open");
  const more = h(
    "button",
    {
      class: "btn more-toggle",
      type: "button",
      "aria-expanded": "false",
      "aria-controls": `more-${id}`,
      title: "More actions",
    },
    icon("ellipsis"),
    "More",
  );
  const rest = h(
    "div",
    { class: "conv-more", id: `more-${id}` },
    h("label", { class: "ctl" }, h("span", { class: "ctl-label" }, "Mode"), mode),
    h("label", { class: "ctl" }, h("span", { class: "ctl-label" }, "Model"), model),
    h(
      "label",
      { class: "switch", for: `may-${id}` },
      may,
      h("span", { class: "switch-track", "aria-hidden": "true" }),
      "Agents in this conversation may start sessions",
    ),
    h("span", { class: "ctl-spacer" }),
    changes,
    usage,
    sched.el,
    watch.el,
    push,
    kill,
    archive,
    unarchive,
    del,
  );
  more.addEventListener("click", () => {
    const open = document.body.classList.toggle("more-open");
    more.setAttribute("aria-expanded", String(open));
  });
  const el = h("div", { class: "conv-controls" }, stop, more, rest);

  return {
    el,
    update(d) {
      if (document.activeElement !== mode) mode.value = d.mode ?? "agent";
      if (document.activeElement !== model) {
        const list = ctx.catalog[d.provider]?.models ?? [];
        const models = list.includes(d.model) ? list : [d.model, ...list];
        if (model.dataset.list !== models.join("|")) {
          model.replaceChildren(...models.map((m) => h("option", { value: m }, m)));
          model.dataset.list = models.join("|");
        }
        model.value = d.model;
      }
      may.checked = !!d.mayCreateSessions;
      stop.disabled = d.state === "idle";
      stop.hidden = !!d.archived;
      archive.hidden = !!d.archived;
      unarchive.hidden = !d.archived;
      for (const b of [mode, model, may, sched.btn, watch.btn]) b.disabled = !!d.archived;
    },
  };
}
