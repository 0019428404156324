// Settings → Relays: paired relays with their "Agents may" level, pairing with another
// relay, and making a pairing token for one. Shown only when the relay serves /api/relays.
import { h, copyButton, fmtTime, agoNode, badge, icon } from "./dom.js";

const LEVELS = [
  ["off", "Off"],
  ["read", "Read"],
  ["prompt", "Prompt"],
  ["full", "Full"],
];

export class RelaysSection {
  constructor(ctx) {
    this.ctx = ctx;
    this.list = h("ul", { class: "relay-list" });
    this.token = h("p", { class: "pair-token", hidden: true });
    this.note = h("p", { class: "pair-token", role: "status", hidden: true });
    const name = h("input", { class: "input", "aria-label": "Relay name", placeholder: "name", required: true });
    const url = h("input", {
      class: "input",
      "aria-label": "Relay address",
      placeholder: "https://host:7420",
      required: true,
    });
    const token = h("input", {
      class: "input",
      "aria-label": "Pairing token",
      placeholder: "pairing token",
      required: true,
      type: "password",
    });
    const pair = h(
      "form",
      {
        class: "pair-form",
        "aria-label": "Pair with a relay",
        onsubmit: async (e) => {
          e.preventDefault();
          try {
            await ctx.call("POST", "/api/relays", {
              name: name.value.trim(),
              url: url.value.trim(),
              token: token.value.trim(),
            });
            name.value = url.value = token.value = "";
            this.refresh();
          } catch {}
        },
      },
      name,
      url,
      token,
      h("button", { class: "btn", type: "submit" }, "Pair"),
    );
    const make = h(
      "button",
      {
        class: "btn",
        type: "button",
        onclick: async () => {
          try {
            const r = await ctx.call("POST", "/api/pairing-tokens", {});
            this.token.replaceChildren(
              h(
                "span",
                {},
                "Give this token to the other relay. It is shown once and works once",
                r.expiresAt ? `, until ${fmtTime(r.expiresAt)}` : "",
                ":",
              ),
              h("code", { class: "token-text" }, r.token),
              copyButton(r.token, "Copy pairing token"),
            );
            this.token.hidden = false;
            // Centred: the sections above may still be loading and grow a little; it stays in sight.
            this.token.scrollIntoView({ block: "center" });
          } catch {}
        },
      },
      "Make a pairing token",
    );
    this.el = h(
      "section",
      { class: "relays", "aria-labelledby": "relays-title", hidden: true },
      h("h3", { id: "relays-title", class: "panel-sub" }, "Relays"),
      this.list,
      this.note,
      h("div", { class: "pair-make" }, make, this.token),
      pair,
    );
  }

  async refresh() {
    let r;
    try {
      r = await this.ctx.call("GET", "/api/relays", undefined, { quiet: true });
    } catch {
      this.el.hidden = true;
      return;
    }
    this.el.hidden = false;
    const relays = r.relays ?? [];
    this.list.replaceChildren(
      ...(relays.length ? relays.map((x) => this.row(x)) : [h("li", { class: "empty-note" }, "No paired relay yet.")]),
    );
  }

  row(x) {
    const path = `/api/relays/${encodeURIComponent(x.name)}`;
    const level = h(
      "select",
      {
        class: "input",
        "aria-label": `Agents may (${x.name})`,
        onchange: () =>
          this.ctx
            .call("PATCH", path, { agentsMay: level.value })
            .catch(() => {})
            .then(() => this.refresh()),
      },
      LEVELS.map(([v, label]) => h("option", { value: v, selected: x.agentsMay === v }, label)),
    );
    // A relay that paired with this one: its agents act here; only unpairing is ours to do.
    const what =
      x.direction === "incoming"
        ? h("span", { class: "relay-url" }, "paired with this relay")
        : h("label", { class: "ctl" }, h("span", { class: "ctl-label" }, "Agents may"), level);
    return h(
      "li",
      { class: "relay" },
      h("span", { class: "relay-name" }, x.name),
      x.direction === "incoming"
        ? null
        : badge(x.online ? "online" : "offline", x.online ? "badge-ok" : "badge-failed"),
      h("span", { class: "relay-url" }, x.lastSeenAt ? ["last seen ", agoNode(x.lastSeenAt)] : "not seen yet"),
      x.url
        ? h(
            "a",
            {
              class: "relay-url",
              href: x.url,
              target: "_blank",
              rel: "noopener noreferrer",
              title: `Open ${x.name}'s own page (it asks for that relay's owner token)`,
            },
            x.url,
            " ",
            icon("external-link"),
          )
        : null,
      what,
      h(
        "button",
        {
          class: "btn btn-danger-quiet",
          type: "button",
          onclick: () =>
            confirm(`Unpair ${x.name}?`) &&
            this.ctx
              .call("DELETE", path)
              .then(
                (r) => this.unpaired(x.name, r),
                () => {},
              )
              .then(() => this.refresh()),
        },
        "Unpair",
      ),
    );
  }

  /** An unpaired relay that did not answer keeps its end until it is told (it is, once it answers). */
  unpaired(name, r) {
    this.note.hidden = r?.reached !== false;
    this.note.textContent = this.note.hidden
      ? ""
      : `${name} did not answer: it is told of the unpairing when it answers again, and until then keeps its end.`;
  }
}
