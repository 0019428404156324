// Settings → Providers: which providers are set up, available or why not, their keys (shown
// masked, never read back), the Claude API monthly cap and spend, and Check again. Reads
// GET /api/providers; on a relay without it, the same answers from GET /api/usage.
import { h, fmtTime } from "./dom.js";
import { customAgentsForm } from "./custom-agents.js";

/** "Claude API" + "API key" → "Claude API key": a word the two share is said once. */
export function fieldName(name, label) {
  const last = name.split(" ").pop();
  const [first, ...rest] = label.split(" ");
  const tail = first.toLowerCase() === last.toLowerCase() ? rest.join(" ") : label;
  return `${name} ${tail.charAt(0).toLowerCase() === tail.charAt(0) || /^[A-Z]{2}/.test(tail) ? tail : tail.charAt(0).toLowerCase() + tail.slice(1)}`;
}

/** A hint as this page tells it: "in Settings → Providers" is here, `code` is code. */
export function hintNode(text) {
  const said = String(text).replace(/ in Settings → Providers/g, " below");
  return said.split(/(`[^`]+`)/).map((part) => (/^`[^`]+`$/.test(part) ? h("code", {}, part.slice(1, -1)) : part));
}

/** The owner settings each provider is set up with (contract §9.2); only those the relay has are shown. */
const SETUP = {
  "claude-api": [["claudeApiKey", "API key", true]],
  "claude-cloud": [["claudeCloudToken", "Token", true]],
  copilot: [["copilotToken", "Token", true]],
  grok: [["xaiApiKey", "xAI API key", true]],
  deepseek: [
    ["deepseekApiKey", "API key", true],
    ["deepseekBaseUrl", "Endpoint", false],
  ],
  "openai-image": [
    ["openaiApiKey", "API key", true],
    ["openaiBaseUrl", "Endpoint", false],
  ],
  "openai-compatible": [
    ["openaiCompatibleBaseUrl", "Endpoint", false],
    ["openaiCompatibleApiKey", "API key", true],
    ["openaiCompatibleName", "Name", false],
  ],
};

export class ProvidersSection {
  constructor(ctx) {
    this.ctx = ctx;
    this.list = h("div", { class: "provider-list" });
    this.note = h("p", { class: "field-help" });
    this.el = h(
      "section",
      { class: "providers", id: "providers", "aria-labelledby": "providers-title" },
      h("h3", { id: "providers-title", class: "panel-sub" }, "Providers"),
      this.note,
      this.list,
    );
    this.settings = {};
    // Settings answers can arrive out of order: a GET asked before a save may answer after
    // the save did. Each answer has a ticket (a GET's is taken when it is asked, a save's
    // when it answers); one older than the newest kept is dropped, not drawn over it.
    this.asked = 0;
    this.kept = 0;
  }

  /** A ticket for a settings GET about to be asked. */
  ask() {
    return ++this.asked;
  }

  /** Keeps `s` unless an answer newer than its ticket was kept already; false when dropped. */
  take(s, ticket = this.ask()) {
    if (ticket < this.kept) return false;
    this.kept = ticket;
    this.settings = s;
    return true;
  }

  async refresh(settings) {
    if (settings) this.take(settings);
    let providers;
    this.canCheck = true;
    try {
      providers = (await this.ctx.call("GET", "/api/providers", undefined, { quiet: true })).providers;
    } catch {
      this.canCheck = false;
      const u = await this.ctx.call("GET", "/api/usage", undefined, { quiet: true }).catch(() => ({ providers: [] }));
      providers = u.providers.map((p) => ({
        id: p.id,
        name: p.name,
        available: p.status !== "not_set_up",
        reason: p.status === "not_set_up" ? p.note : undefined,
      }));
    }
    this.note.textContent = this.canCheck
      ? ""
      : "This relay does not probe providers on demand; availability is what it last saw.";
    this.providers = providers;
    this.draw();
  }

  draw() {
    const focused = document.activeElement?.id;
    // Those that work first, then the rest in the relay's order.
    const list = [...(this.providers ?? [])].sort((a, b) => Number(!!b.available) - Number(!!a.available));
    const custom =
      "customAgents" in this.settings ? customAgentsForm(this.ctx, this.settings, (s) => this.refresh(s)) : null;
    this.list.replaceChildren(...list.map((p) => this.row(p)), ...(custom ? [custom] : []));
    if (focused) document.getElementById(focused)?.focus();
  }

  row(p) {
    const status = p.available
      ? h("span", { class: "prov-status ok" }, h("span", { "aria-hidden": "true" }, "✓ "), "Available")
      : h("span", { class: "prov-status no" }, h("span", { "aria-hidden": "true" }, "✗ "), "Not available");
    const result = h(
      "span",
      { class: "field-help prov-checked", role: "status", "aria-live": "polite" },
      p.checkedSaid ?? "",
    );
    const check = this.canCheck
      ? h(
          "button",
          {
            class: "btn btn-small",
            type: "button",
            onclick: async (e) => {
              e.currentTarget.disabled = true;
              e.currentTarget.textContent = "Checking…";
              result.textContent = "";
              try {
                const r = await this.ctx.call("POST", `/api/providers/${encodeURIComponent(p.id)}/check`, {});
                Object.assign(p, r.provider ?? r);
                p.checkedSaid = `Checked just now: ${p.available ? "available" : "not available"}.`;
              } catch (err) {
                p.checkedSaid = `The check failed: ${err.message}`;
              }
              this.draw();
            },
          },
          "Check again",
        )
      : null;
    const fields = (SETUP[p.id] ?? [])
      .filter(([k]) => k in this.settings)
      .map(([k, label, secret]) => this.field(p, k, label, secret));
    return h(
      "div",
      { class: `provider${p.available ? "" : " is-unavailable"}`, role: "group", "aria-label": `Provider ${p.name}` },
      h(
        "div",
        { class: "prov-head" },
        h("strong", {}, p.name),
        status,
        p.checkedAt ? h("span", { class: "field-help" }, `checked ${fmtTime(p.checkedAt)}`) : null,
        result,
        h("span", { class: "ctl-spacer" }),
        check,
      ),
      !p.available && p.reason ? h("p", { class: "prov-reason" }, hintNode(p.reason)) : null,
      // How to set it up, while it is not available (install, sign in, a key here).
      !p.available && p.setUp?.length
        ? h(
            "ul",
            { class: "prov-setup field-help" },
            (Array.isArray(p.setUp) ? p.setUp : [String(p.setUp)]).map((x) =>
              h("li", {}, hintNode(String(x).replace(/^Settings → Providers: /, "Below: "))),
            ),
          )
        : null,
      p.checking ? h("span", { class: "field-help" }, "checking…") : null,
      // What its agent advertised (contract §10.2): whether a new process can continue a conversation.
      p.capabilities && Object.values(p.capabilities).some(Boolean)
        ? h(
            "p",
            { class: "prov-caps field-help" },
            `Can: ${[
              ["loadSession", "load a session"],
              ["resume", "resume"],
              ["images", "images"],
              ["mcpHttp", "MCP over HTTP"],
            ]
              .filter(([k]) => p.capabilities[k])
              .map(([, w]) => w)
              .join(", ")}`,
          )
        : null,
      fields.length ? h("div", { class: "prov-fields" }, fields) : null,
      p.id === "claude-api" && "claudeApiMonthlyCapUsd" in this.settings ? this.cap() : null,
    );
  }

  field(p, key, label, secret) {
    const id = `prov-${key}`;
    const set = this.settings[key];
    const input = h("input", {
      class: "input",
      id,
      type: secret ? "password" : "text",
      autocomplete: "off",
      placeholder: secret ? (set ? "**** (set)" : "not set") : "",
      value: secret ? "" : (set ?? ""),
    });
    const save = async (value) => {
      try {
        this.take(await this.ctx.call("PATCH", "/api/settings", { [key]: value }));
        input.value = secret ? "" : (this.settings[key] ?? "");
        await this.refresh();
      } catch {}
    };
    return h(
      "form",
      {
        class: "prov-field",
        onsubmit: (e) => {
          e.preventDefault();
          save(input.value.trim() === "" && !secret ? null : input.value.trim());
        },
      },
      h("label", { class: "field-label", for: id }, fieldName(p.name, label)),
      input,
      h("button", { class: "btn btn-small", type: "submit" }, "Save"),
      secret && set
        ? h("button", { class: "btn btn-small btn-danger-quiet", type: "button", onclick: () => save("") }, "Remove")
        : null,
    );
  }

  cap() {
    const s = this.settings;
    const input = h("input", {
      class: "input input-num",
      id: "prov-cap",
      type: "number",
      min: 0,
      step: 1,
      value: s.claudeApiMonthlyCapUsd ?? "",
      placeholder: "no cap",
    });
    const spent = Number(s.claudeApiSpentUsd ?? 0);
    const cap = s.claudeApiMonthlyCapUsd;
    return h(
      "form",
      {
        class: "prov-field",
        onsubmit: async (e) => {
          e.preventDefault();
          try {
            this.take(
              await this.ctx.call("PATCH", "/api/settings", {
                claudeApiMonthlyCapUsd: input.value === "" ? null : Number(input.value),
              }),
            );
            await this.refresh();
          } catch {}
        },
      },
      h("label", { class: "field-label", for: "prov-cap" }, "Claude API monthly cap (USD)"),
      input,
      h("button", { class: "btn btn-small", type: "submit" }, "Save"),
      h("span", { class: "field-help" }, `Spent this month: $${spent.toFixed(2)}${cap != null ? ` of $${cap}` : ""}`),
      cap
        ? h("meter", { min: 0, max: cap, value: Math.min(spent, cap), "aria-label": "Claude API spend this month" })
        : null,
    );
  }
}
