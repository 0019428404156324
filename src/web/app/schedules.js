// Schedules and subscriptions: every active one of the relay in one list (GET /api/schedules,
// GET /api/subscriptions), each with Cancel or Unsubscribe; and the owner's own forms to set
// a schedule (POST /api/schedules) or make a conversation watch others (POST
// /api/subscriptions) — also opened from a conversation's ⏰ and 👁 menus. The relay checks
// both as it checks an agent's schedule and subscribe, and its words are shown.
import { h, icon, fmtTime } from "./dom.js";

const EVENTS = [
  "turn_end",
  "error",
  "question_asked",
  "question_answered",
  "task_failed",
  "subagent_finished",
  "stalled",
  "all_idle",
];

const ref = (x) => (x && typeof x === "object" ? (x.title ?? x.id) : x);
const link = (x) =>
  x && typeof x === "object" ? h("a", { href: `#session=${encodeURIComponent(x.id)}` }, x.title ?? x.id) : x;

/** A local date-time input's value as an ISO time (the relay takes ISO). */
const toIso = (local) => (local ? new Date(local).toISOString() : undefined);

/** The ⏰ form: a prompt into `sessionId` once at a time, or every N minutes. */
export function scheduleForm(ctx, sessionId, done) {
  const title = h("input", {
    class: "input",
    "aria-label": "Schedule title",
    placeholder: "title (optional)",
    maxlength: 200,
  });
  const text = h("textarea", {
    class: "input",
    rows: 2,
    "aria-label": "Prompt to send when due",
    placeholder: "What to send when due",
    required: true,
  });
  const at = h("input", { class: "input", type: "datetime-local", "aria-label": "First time (your local time)" });
  const every = h("input", {
    class: "input input-num",
    type: "number",
    min: 1,
    step: 1,
    "aria-label": "Repeat every (minutes)",
    placeholder: "—",
  });
  const error = h("p", { class: "form-error", role: "alert" });
  const save = h("button", { class: "btn btn-primary", type: "submit" }, "Schedule");
  return h(
    "form",
    {
      class: "owner-form",
      "aria-label": "New schedule",
      onsubmit: async (e) => {
        e.preventDefault();
        error.textContent = "";
        const body = { session: sessionId, text: text.value };
        if (title.value.trim()) body.title = title.value.trim();
        if (at.value) body.at = toIso(at.value);
        if (every.value) body.every_minutes = Number(every.value);
        save.disabled = true;
        try {
          await ctx.call("POST", "/api/schedules", body, { quiet: true });
          done?.();
          ctx.changed({ sessionId });
        } catch (err) {
          error.textContent = err.message;
        } finally {
          save.disabled = false;
        }
      },
    },
    title,
    text,
    h(
      "div",
      { class: "owner-form-row" },
      h("label", { class: "ctl" }, h("span", { class: "ctl-label" }, "At"), at),
      h(
        "label",
        { class: "ctl" },
        h("span", { class: "ctl-label" }, "every"),
        every,
        h("span", { class: "ctl-label" }, "min"),
      ),
    ),
    h(
      "p",
      { class: "field-help" },
      "Give a time, a repeat, or both. The prompt arrives as an automated schedule message.",
    ),
    error,
    h("div", { class: "form-actions" }, save),
  );
}

/** The 👁 form: `watcherId` is woken by events of the sessions picked (or all of them). */
export function watchForm(ctx, watcherId, done) {
  const others = ctx.sessions().filter((s) => s.id !== watcherId && !s.archived);
  const pick = h(
    "select",
    {
      class: "input",
      multiple: true,
      size: Math.min(6, Math.max(2, others.length + 1)),
      "aria-label": "Sessions to watch",
    },
    h("option", { value: "all" }, "All sessions on this relay"),
    others.map((s) => h("option", { value: s.id }, s.title)),
  );
  const boxes = EVENTS.map((e) =>
    h(
      "label",
      { class: "check" },
      h("input", {
        type: "checkbox",
        value: e,
        checked: ["turn_end", "error", "question_asked", "task_failed"].includes(e),
      }),
      e.replace(/_/g, " "),
    ),
  );
  const once = h("input", { type: "checkbox", "aria-label": "Only the first event" });
  const digest = h("input", {
    class: "input input-num",
    type: "number",
    min: 1,
    max: 1440,
    step: 1,
    "aria-label": "Digest every (minutes)",
    placeholder: "—",
  });
  const error = h("p", { class: "form-error", role: "alert" });
  const save = h("button", { class: "btn btn-primary", type: "submit" }, "Watch");
  return h(
    "form",
    {
      class: "owner-form",
      "aria-label": "New subscription",
      onsubmit: async (e) => {
        e.preventDefault();
        error.textContent = "";
        const sessions = [...pick.selectedOptions].map((o) => o.value);
        const body = {
          watcher: watcherId,
          sessions: sessions.includes("all") ? ["all"] : sessions,
          events: boxes
            .map((b) => b.firstChild)
            .filter((c) => c.checked)
            .map((c) => c.value),
        };
        if (once.checked) body.once = true;
        if (digest.value) body.digest_minutes = Number(digest.value);
        save.disabled = true;
        try {
          await ctx.call("POST", "/api/subscriptions", body, { quiet: true });
          done?.();
          ctx.changed({ sessionId: watcherId });
        } catch (err) {
          error.textContent = err.message;
        } finally {
          save.disabled = false;
        }
      },
    },
    pick,
    h("fieldset", { class: "events" }, h("legend", {}, "Wake it on"), boxes),
    h(
      "div",
      { class: "owner-form-row" },
      h("label", { class: "check" }, once, "once"),
      h(
        "label",
        { class: "ctl" },
        h("span", { class: "ctl-label" }, "digest every"),
        digest,
        h("span", { class: "ctl-label" }, "min"),
      ),
    ),
    error,
    h("div", { class: "form-actions" }, save),
  );
}

export function scheduleLine(s) {
  const when = s.everyMinutes ? `every ${s.everyMinutes} min` : "once";
  return [when, s.nextFireAt ? `next ${fmtTime(s.nextFireAt)}` : null, s.heldForApproval ? "held for approval" : null]
    .filter(Boolean)
    .join(" · ");
}

export class SchedulesView {
  constructor(ctx) {
    this.ctx = ctx;
    this.schedules = h("ul", { class: "owner-list", "aria-label": "Schedules" });
    this.subs = h("ul", { class: "owner-list", "aria-label": "Subscriptions" });
    this.el = h(
      "section",
      { class: "panel schedules", "aria-labelledby": "sched-title" },
      h("h2", { class: "panel-title", id: "sched-title" }, "Schedules and subscriptions"),
      h(
        "p",
        { class: "field-help" },
        "Everything set on this relay, by you or by agents. Set new ones from a conversation's ",
        icon("alarm-clock"),
        " Schedule and ",
        icon("eye"),
        " Watch menus.",
      ),
      h("h3", { class: "panel-sub" }, "Schedules"),
      this.schedules,
      h("h3", { class: "panel-sub" }, "Subscriptions"),
      this.subs,
    );
  }

  refreshSoon() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh(), 150);
  }

  async refresh() {
    const [s, w] = await Promise.all([
      this.ctx.call("GET", "/api/schedules", undefined, { quiet: true }).catch(() => ({ schedules: [] })),
      this.ctx.call("GET", "/api/subscriptions", undefined, { quiet: true }).catch(() => ({ subscriptions: [] })),
    ]);
    const del = (path) =>
      this.ctx.call("DELETE", path).then(
        () => this.refresh(),
        () => {},
      );
    this.schedules.replaceChildren(
      ...(s.schedules.length
        ? s.schedules.map((x) =>
            h(
              "li",
              { class: "owner-item" },
              icon("alarm-clock"),
              h("strong", {}, x.title),
              h("span", {}, " into ", link(x.session)),
              h(
                "span",
                { class: "field-help" },
                ` · ${scheduleLine(x)} · set by ${x.setBy === "owner" ? "you" : x.setBy ? ref(x.setBy) : "itself"}`,
              ),
              h(
                "button",
                {
                  class: "btn btn-small",
                  type: "button",
                  "aria-label": `Cancel schedule ${x.title}`,
                  onclick: () => del(`/api/schedules/${encodeURIComponent(x.id)}`),
                },
                "Cancel",
              ),
            ),
          )
        : [h("li", { class: "empty-note" }, "No schedule is active.")]),
    );
    const title = (id) => this.ctx.sessions().find((x) => x.id === id)?.title ?? id;
    this.subs.replaceChildren(
      ...(w.subscriptions.length
        ? w.subscriptions.map((x) => {
            const what = x.sessions === "all" ? "all sessions" : x.sessions.map(ref).join(", ");
            return h(
              "li",
              { class: "owner-item" },
              icon("eye"),
              h("a", { href: `#session=${encodeURIComponent(x.watcher)}` }, title(x.watcher)),
              h("span", {}, ` watches ${what}`),
              x.relay ? h("span", { class: "field-help" }, ` on relay ${x.relay}`) : null,
              h(
                "span",
                { class: "field-help" },
                ` · ${[x.events?.length ? x.events.join(", ") : "default events", x.once ? "once" : null, x.digestMinutes ? `digest ${x.digestMinutes} min` : null].filter(Boolean).join(" · ")}`,
              ),
              h(
                "button",
                {
                  class: "btn btn-small",
                  type: "button",
                  "aria-label": `Unsubscribe ${title(x.watcher)} from ${what}`,
                  onclick: () => del(`/api/subscriptions/${encodeURIComponent(x.id)}`),
                },
                "Unsubscribe",
              ),
            );
          })
        : [h("li", { class: "empty-note" }, "No subscription is active.")]),
    );
  }
}
