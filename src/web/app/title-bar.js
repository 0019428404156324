// The conversation's title bar: title, state, badges (seed §3: `via agent · "title"`,
// `watching N sessions`, `watched`), its group, subscriptions and schedules, and the
// owner's controls. Rebuilt on each update except the controls, which keep focus.
import { h, badge, stateDot, STATE_LABEL, fmtTime } from "./dom.js";
import { usageText } from "./activity.js";

/** The session's tokens and cost, summed over the replies that reported them. */
function sessionUsage(d) {
  const sum = {};
  let any = false;
  for (const m of d.messages ?? []) {
    const u = m.meta?.usage;
    if (!u) continue;
    any = true;
    for (const k of ["inputTokens", "outputTokens", "cachedTokens", "costUsd"]) if (u[k] != null) sum[k] = (sum[k] ?? 0) + Number(u[k]);
  }
  return any ? usageText(sum) : "";
}

export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function viaAgentLink(via) {
  return h("a", { class: "via-agent", href: `#session=${encodeURIComponent(via.session)}` }, `via agent · "${via.title ?? via.session}"`);
}

const waitingCount = (d) => (d.cards ?? []).filter((c) => c.status === "pending").length + (d.pendingQuestions ?? []).length;

export function titleBar(head, d, ctx) {
  if (head.dataset.session !== d.id) {
    head.dataset.session = d.id;
    head.controls = controls(d, ctx);
    head.info = h("div", { class: "conv-info" });
    head.replaceChildren(head.info, head.controls.el);
  }
  head.controls.update(d);
  head.info.replaceChildren(...[
    h("div", { class: "conv-title-row" },
      waitingCount(d) ? h("span", { class: "dot dot-waiting", role: "img", "aria-label": "state: waiting for you", title: "waiting for you" }) : stateDot(d.state),
      h("h2", { class: "conv-title", id: "conv-title", title: "Double-click to rename", ondblclick: () => rename(head, d, ctx) }, d.title),
      h("span", { class: "state-text" }, STATE_LABEL[d.state] ?? d.state),
      waitingCount(d) ? badge(`needs you · ${waitingCount(d)}`, "badge-needs") : null,
      d.archived ? badge("archived", "badge-archived") : null,
      d.watched ? badge("watched", "badge-watched", { title: "Another conversation watches this one" }) : null,
      d.watching > 0 ? badge(`watching ${plural(d.watching, "session")}`, "badge-watching") : null),
    h("div", { class: "conv-sub" },
      d.viaAgent ? viaAgentLink(d.viaAgent) : null,
      h("span", {}, [d.provider, d.model, d.effort].filter(Boolean).join(" · ")),
      h("span", { class: "conv-cwd", title: "Folder" }, d.cwd),
      sessionUsage(d) ? h("span", { class: "conv-usage", title: "Tokens and cost of this session" }, `Σ ${sessionUsage(d)}`) : null),
    groupLine(d),
    watchLine(d, ctx),
  ].filter(Boolean));
}

function groupLine(d) {
  if (!d.group) return null;
  const members = d.group.members ?? [];
  return h("div", { class: "conv-group" },
    h("span", { class: "conv-group-name" }, `Group “${d.group.name}”${d.group.role === "head" ? " · this conversation leads it" : ""}${members.length ? ":" : ""}`),
    members.length ? h("span", { class: "conv-members" }, members.map((m) =>
      h("a", { class: "member", href: `#session=${encodeURIComponent(m.id)}` }, stateDot(m.state), m.title, m.archived ? " (archived)" : ""))) : null);
}

/** Subscriptions and schedules, when the relay reports them with the session. */
function watchLine(d, ctx) {
  const subs = Array.isArray(d.subscriptions) ? d.subscriptions.filter((s) => s.active !== false) : [];
  const scheds = Array.isArray(d.schedules) ? d.schedules.filter((s) => s.active !== false) : [];
  if (!subs.length && !scheds.length) return null;
  const del = (path) => ctx.call("DELETE", path).then(() => ctx.changed({ sessionId: d.id }), () => {});
  return h("div", { class: "conv-watch" },
    subs.map((s) => {
      const list = Array.isArray(s.sessions) ? s.sessions : null;
      const name = s.sessions === "all" ? "all sessions" : list ? list.map((x) => x.title ?? x.id).join(", ") : s.id;
      const what = [s.events?.length ? s.events.join(", ") : null, s.once ? "once" : null, s.digestMinutes ? `digest ${s.digestMinutes} min` : null].filter(Boolean).join(" · ");
      return h("span", { class: "chip", role: "group", "aria-label": `Subscription to ${name}` }, h("span", { "aria-hidden": "true" }, "👁 "), name,
        what ? h("span", { class: "chip-meta" }, ` · ${what}`) : null,
        h("button", { class: "chip-x", type: "button", "aria-label": `Unsubscribe from ${name}`, onclick: () => del(`/api/subscriptions/${encodeURIComponent(s.id)}`) }, "Unsubscribe"));
    }),
    scheds.map((s) => h("span", { class: "chip", role: "group", "aria-label": `Schedule ${s.title}` }, h("span", { "aria-hidden": "true" }, "⏰ "), s.title,
      h("span", { class: "chip-meta" }, s.everyMinutes ? ` every ${s.everyMinutes} min` : " once", s.nextFireAt ? ` · next ${fmtTime(s.nextFireAt)}` : "",
        s.setBy && s.setBy.id !== d.id ? ` · set by ${s.setBy.title ?? s.setBy.id}` : "", s.session && s.session.id !== d.id ? ` · into ${s.session.title ?? s.session.id}` : "",
        s.heldForApproval ? " · held for approval" : ""),
      h("button", { class: "chip-x", type: "button", "aria-label": `Cancel schedule ${s.title}`, onclick: () => del(`/api/schedules/${encodeURIComponent(s.id)}`) }, "Cancel"))));
}

function rename(head, d, ctx) {
  const input = h("input", { class: "input conv-title-input", value: d.title, "aria-label": "Session title", maxlength: 200 });
  const title = head.querySelector(".conv-title");
  title.replaceWith(input);
  input.focus();
  input.select();
  let done = false;
  const finish = async (save) => {
    if (done) return;
    done = true;
    const t = input.value.trim();
    if (save && t && t !== d.title) await ctx.call("PATCH", `/api/sessions/${encodeURIComponent(d.id)}`, { title: t }).catch(() => {});
    ctx.changed({ sessionId: d.id, list: true, force: true });
  };
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") finish(true);
    if (e.key === "Escape") finish(false);
  });
  input.addEventListener("blur", () => finish(true));
}

function controls(d0, ctx) {
  const id = d0.id;
  const path = `/api/sessions/${encodeURIComponent(id)}`;
  const patch = (body) => ctx.call("PATCH", path, body).then(() => ctx.changed({ sessionId: id, list: true }), () => ctx.changed({ sessionId: id, force: true }));
  const post = (what) => ctx.call("POST", `${path}/${what}`).then(() => ctx.changed({ sessionId: id, list: true }), () => {});

  const mode = h("select", { class: "input", "aria-label": "Relay mode", onchange: () => patch({ mode: mode.value }) },
    ["agent", "ask", "plan"].map((m) => h("option", { value: m }, m)));
  const model = h("select", { class: "input", "aria-label": "Model", onchange: () => patch({ model: model.value }) });
  const may = h("input", { type: "checkbox", role: "switch", id: `may-${id}`, onchange: () => patch({ mayCreateSessions: may.checked }) });
  const stop = h("button", { class: "btn", type: "button", onclick: () => post("stop") }, "Stop");
  const kill = h("button", { class: "btn", type: "button", title: "End the agent process now; the next turn starts a fresh one", onclick: () => post("kill") }, "Kill session");
  const archive = h("button", { class: "btn", type: "button", onclick: () => post("archive") }, "Archive");
  // Claude Cloud works on a clone: its branch goes back to the repository when you push it.
  const push = d0.provider === "claude-cloud" ? h("button", { class: "btn", type: "button", title: `Push branch ${d0.branch ?? ""} to ${d0.repo ?? "the repository"}`, onclick: async () => {
    push.disabled = true;
    const said = await ctx.call("POST", `${path}/push`).then(
      (r) => {
        // Push sends commits only: files the agent changed without committing stay behind.
        const left = r.uncommitted ? `${r.uncommitted} changed file${r.uncommitted === 1 ? "" : "s"} not committed` : "";
        push.title = left ? `${left}: ask the agent to commit them, then push again` : `Push branch ${d0.branch ?? ""} to ${d0.repo ?? "the repository"}`;
        const said = r.pushed ? `Pushed ${r.commits} commit${r.commits === 1 ? "" : "s"}` : "Nothing to push";
        return left ? `${said} (${left})` : said;
      },
      (e) => { push.title = e.message; return "Push failed"; });
    push.textContent = said;
    setTimeout(() => { push.textContent = "Push"; push.disabled = false; }, 4000);
  } }, "Push") : null;
  const del = h("button", { class: "btn btn-danger-quiet", type: "button", onclick: async () => {
    if (!confirm("Delete this session and its history?")) return;
    await ctx.call("DELETE", path).then(() => ctx.go(""), () => {});
  } }, "Delete");

  const el = h("div", { class: "conv-controls" },
    h("label", { class: "ctl" }, h("span", { class: "ctl-label" }, "Mode"), mode),
    h("label", { class: "ctl" }, h("span", { class: "ctl-label" }, "Model"), model),
    h("label", { class: "switch", for: `may-${id}` }, may, h("span", { class: "switch-track", "aria-hidden": "true" }), "Agents in this conversation may start sessions"),
    h("span", { class: "ctl-spacer" }),
    push, stop, kill, archive, del);

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
      for (const b of [mode, model, may, archive]) b.disabled = !!d.archived;
    },
  };
}
