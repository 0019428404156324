// The home page: a dashboard of the relay. What needs you, what is running, what failed and
// what just finished, across the sessions the list holds, each a link; and each paired relay
// with its state, one click from its own page. It never says "no sessions" before the list
// has loaded, nor while there are any.
import { h, icon, agoNode, failureOf, badge, STATE_LABEL } from "./dom.js";
import { plural } from "./title-bar.js";

const RECENT_MS = 24 * 60 * 60_000;
const SHOW = 8;

function link(s, extra) {
  return h(
    "li",
    { class: "dash-item" },
    h(
      "a",
      { class: "dash-link", href: `#session=${encodeURIComponent(s.id)}`, title: s.title, dataset: { session: s.id } },
      h("span", { class: "dash-title" }, s.title),
      extra ?? null,
      s.lastActivityAt ? agoNode(s.lastActivityAt, "dash-ago") : null,
    ),
  );
}

function section(id, iconName, title, items, empty) {
  return h(
    "section",
    { class: `dash-card dash-${id}`, "aria-labelledby": `dash-${id}-h` },
    h(
      "h3",
      { class: "dash-h", id: `dash-${id}-h` },
      icon(iconName),
      `${title}${items.length ? ` · ${items.length}` : ""}`,
    ),
    items.length ? h("ul", { class: "dash-list" }, items.slice(0, SHOW)) : h("p", { class: "empty-note" }, empty),
    items.length > SHOW ? h("p", { class: "field-help" }, `and ${items.length - SHOW} more in the list`) : null,
  );
}

export class HomeView {
  constructor(ctx) {
    this.ctx = ctx;
    this.body = h("div", { class: "dash" });
    this.relays = h("div", { class: "dash-relays" });
    this.el = h(
      "section",
      { class: "panel home", "aria-labelledby": "home-title" },
      h("h2", { class: "panel-title", id: "home-title" }, `Relay “${ctx.state.name}”`),
      this.body,
      this.relays,
    );
    this.loadRelays();
  }

  async loadRelays() {
    let r;
    try {
      r = await this.ctx.call("GET", "/api/relays", undefined, { quiet: true });
    } catch {
      return;
    }
    const relays = r.relays ?? [];
    if (!relays.length) return this.relays.replaceChildren();
    this.relays.replaceChildren(
      h(
        "section",
        { class: "dash-card", "aria-labelledby": "dash-relays-h" },
        h("h3", { class: "dash-h", id: "dash-relays-h" }, icon("radio-tower"), `Paired relays · ${relays.length}`),
        h(
          "ul",
          { class: "dash-list" },
          relays.map((x) =>
            h(
              "li",
              { class: "dash-item" },
              h("span", { class: "dash-title" }, x.name),
              x.direction === "incoming"
                ? badge("paired with this relay")
                : badge(x.online ? "online" : "offline", x.online ? "badge-ok" : "badge-failed"),
              x.lastSeenAt
                ? h("span", { class: "field-help" }, "seen ", agoNode(x.lastSeenAt))
                : h("span", { class: "field-help" }, "not seen yet"),
              x.url
                ? h(
                    "a",
                    {
                      class: "btn btn-small",
                      href: x.url,
                      target: "_blank",
                      rel: "noopener noreferrer",
                      title: `Open ${x.name}'s own page (it asks for that relay's owner token)`,
                    },
                    "Open its page ",
                    icon("external-link"),
                  )
                : null,
            ),
          ),
        ),
      ),
    );
  }

  update(state) {
    const all = state.sessions.filter((s) => !s.archived);
    if (!state.loaded) return this.body.replaceChildren(h("p", { class: "empty-note" }, "Loading sessions…"));
    if (!all.length && !state.total) {
      return this.body.replaceChildren(h("p", {}, "No sessions yet. Start one with New session."));
    }
    const now = Date.now();
    const waiting = all.filter((s) => state.waiting.get(s.id));
    const running = all.filter((s) => s.state !== "idle" && !state.waiting.get(s.id));
    const failed = all.filter((s) => s.state === "idle" && failureOf(s) && !state.waiting.get(s.id));
    const finished = all
      .filter(
        (s) =>
          s.state === "idle" &&
          !failureOf(s) &&
          s.lastTurn?.status === "done" &&
          now - Date.parse(s.lastTurn.endedAt) < RECENT_MS,
      )
      .sort((a, b) => (a.lastTurn.endedAt < b.lastTurn.endedAt ? 1 : -1));
    const total = state.total || all.length;
    this.body.replaceChildren(
      h(
        "p",
        { class: "dash-sum" },
        [
          plural(total, "session"),
          `${running.length} running`,
          `${waiting.length} waiting for you`,
          failed.length ? `${failed.length} failed` : null,
        ]
          .filter(Boolean)
          .join(" · "),
        " — pick one from the list, or ",
        h("a", { href: "#new" }, "start a new one"),
        ".",
      ),
      h(
        "div",
        { class: "dash-grid" },
        section(
          "needs",
          "bell",
          "Needs you",
          waiting.map((s) => link(s, badge(`${state.waiting.get(s.id)} waiting`, "badge-needs"))),
          "Nothing waits for you.",
        ),
        section(
          "running",
          "clock",
          "Running",
          running.map((s) => link(s, h("span", { class: "field-help" }, STATE_LABEL[s.state] ?? s.state))),
          "Nothing is running.",
        ),
        section(
          "failed",
          "triangle-alert",
          "Failed",
          failed.map((s) => link(s, h("span", { class: "dash-fail" }, failureOf(s).text))),
          "Nothing failed.",
        ),
        section(
          "finished",
          "circle-check",
          "Just finished",
          finished.map((s) => link(s, s.preview?.text ? h("span", { class: "dash-preview" }, s.preview.text) : null)),
          "Nothing finished in the last day.",
        ),
      ),
    );
  }
}
