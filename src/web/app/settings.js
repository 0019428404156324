// Settings (contract §3 GET/PATCH /api/settings). Each field saves on its own when it
// changes; a refusal shows the relay's reason and puts the stored value back.
import { h, icon } from "./dom.js";
import { RelaysSection } from "./relays.js";
import { ProvidersSection } from "./providers.js";
import { UsageSection } from "./usage.js";
import { NotifySection } from "./notify-settings.js";

const FIELDS = [
  {
    key: "agentSessions",
    type: "switch",
    label: "Agents may start and use sessions on this relay",
    help: "Offers relay_tool to agents here. A running conversation gets it when its agent next starts.",
  },
  {
    key: "longestWaitMinutes",
    type: "number",
    min: 2,
    max: 60,
    label: "Longest wait per tool call",
    unit: "min",
    help: "How long send, create_session and wait may block (2–60 minutes).",
  },
  {
    key: "maxTurnMinutes",
    type: "number",
    min: 1,
    max: 1440,
    label: "Max turn duration",
    unit: "min",
    help: "A turn running longer is stopped.",
  },
  {
    key: "quietAfterMinutes",
    type: "number",
    min: 1,
    max: 1440,
    label: "Quiet after",
    unit: "min",
    help: "A watched session counts as quiet after this many minutes without activity.",
  },
  {
    key: "acceptPromptsFromOtherRelays",
    type: "switch",
    label: "Accept prompts from other relays' agents",
    help: "Off: agents on paired relays can still list, read and wait, but not prompt, start, answer, stop, archive or subscribe here.",
  },
  // Limits (contract §9.3); defaults in docs/configuration.md.
  {
    key: "maxWorkers",
    type: "number",
    min: 1,
    max: 256,
    label: "Agent processes at most",
    unit: "",
    help: "Default 8. At the cap the idle agent unused longest is stopped; when all are busy a turn waits.",
  },
  {
    key: "taskOutputMaxMb",
    type: "number",
    min: 1,
    max: 10240,
    label: "Task output kept per task",
    unit: "MB",
    help: "Default 20. The end of the output is kept.",
  },
  {
    key: "taskOutputTotalMb",
    type: "number",
    min: 1,
    max: 1048576,
    label: "Task output kept in all",
    unit: "MB",
    help: "Default 1024. The output of tasks that ended first goes first.",
  },
  {
    key: "maxBodyMb",
    type: "number",
    min: 1,
    max: 512,
    label: "Largest request body",
    unit: "MB",
    help: "Default 4. A larger request is refused (413).",
  },
  {
    key: "maxMcpSessions",
    type: "number",
    min: 10,
    max: 100000,
    label: "MCP sessions held open",
    unit: "",
    help: "Default 2000. The least recently used idle one is closed first.",
  },
];

export class SettingsView {
  constructor(ctx) {
    this.ctx = ctx;
    this.inputs = new Map();
    this.said = new Map();
    this.status = h("p", { class: "save-status", role: "status", "aria-live": "polite" });
    const rows = FIELDS.map((f) => this.row(f));
    this.relays = new RelaysSection(ctx);
    this.providers = new ProvidersSection(ctx);
    this.usage = new UsageSection(ctx);
    this.notify = new NotifySection(ctx);
    // Its saves' answers are the newest settings too: a GET asked before them is dropped.
    this.notify.saved = (s) => this.providers.take(s);
    const jump = (id, label) =>
      h(
        "a",
        {
          class: "btn btn-small",
          href: `#settings`,
          onclick: (e) => {
            e.preventDefault();
            document.getElementById(id)?.scrollIntoView();
            document.getElementById(id)?.querySelector("h3")?.focus();
          },
        },
        label,
      );
    this.el = h(
      "section",
      { class: "panel settings", "aria-labelledby": "settings-title" },
      h("h2", { id: "settings-title", class: "panel-title" }, "Settings"),
      h(
        "nav",
        { class: "settings-nav", "aria-label": "Settings sections" },
        jump("general", "General"),
        jump("notify-section", "Notifications"),
        jump("providers", "Providers"),
        jump("usage", "Usage"),
        jump("relays-section", "Relays"),
      ),
      h(
        "section",
        { id: "general", "aria-labelledby": "general-title" },
        h("h3", { id: "general-title", class: "panel-sub", tabindex: -1 }, "General"),
        h("form", { class: "settings-form", onsubmit: (e) => e.preventDefault() }, rows),
        this.status,
      ),
      this.notify.el,
      this.providers.el,
      this.usage.el,
      h("div", { id: "relays-section" }, this.relays.el),
    );
    for (const s of [this.providers.el, this.usage.el]) s.querySelector("h3").tabIndex = -1;
  }

  row(f) {
    const id = `set-${f.key}`;
    const input =
      f.type === "switch"
        ? h("input", { type: "checkbox", role: "switch", id })
        : h("input", { type: "number", class: "input input-num", id, min: f.min, max: f.max, step: 1, required: true });
    input.addEventListener("change", () => this.save(f, input));
    this.inputs.set(f.key, input);
    const help = h("p", { class: "field-help", id: `${id}-help` }, f.help);
    // Each field says right beside it that it was saved, or why not.
    const said = h("span", { class: "field-said", id: `${id}-said`, role: "status", "aria-live": "polite" });
    this.said.set(f.key, said);
    input.setAttribute("aria-describedby", `${id}-help ${id}-said`);
    return f.type === "switch"
      ? h(
          "div",
          { class: "field" },
          h(
            "span",
            { class: "field-line" },
            h(
              "label",
              { class: "switch", for: id },
              input,
              h("span", { class: "switch-track", "aria-hidden": "true" }),
              f.label,
            ),
            said,
          ),
          help,
        )
      : h(
          "div",
          { class: "field" },
          h("label", { class: "field-label", for: id }, f.label),
          h("span", { class: "num-wrap" }, input, h("span", { class: "unit" }, f.unit), said),
          help,
        );
  }

  async save(f, input) {
    const value = f.type === "switch" ? input.checked : Number(input.value);
    const said = this.said.get(f.key);
    said.className = "field-said";
    said.textContent = "Saving…";
    try {
      const s = await this.ctx.call("PATCH", "/api/settings", { [f.key]: value }, { quiet: true });
      this.update(s, true);
      said.replaceChildren(icon("check"), "Saved");
      said.classList.add("ok");
      this.status.textContent = `Saved: ${f.label}.`;
    } catch (e) {
      // The relay's reason, naming the field as the page does; the field shows what is stored.
      const why = String(e.message).replaceAll(`Setting ${f.key}`, f.label).replaceAll(f.key, f.label);
      said.replaceChildren(icon("triangle-alert"), `Not saved: ${why}`);
      said.classList.add("bad");
      this.status.textContent = "";
      if (this.last) this.put(f, input, this.last);
    }
  }

  put(f, input, s) {
    if (f.type === "switch") input.checked = !!s[f.key];
    else input.value = s[f.key] == null ? "" : String(s[f.key]);
  }

  /** A ticket for a GET /api/settings about to be asked (its answer goes to update()). */
  ask() {
    return this.providers.ask();
  }

  /** `ticket`: a GET's, from ask(); none for a save's answer. An answer older than one shown
   * already (a GET asked before a save, answering after it) is dropped. */
  update(s, force = false, ticket = undefined) {
    if (!this.providers.take(s, ticket)) return;
    this.last = s;
    if (!this.loaded) {
      this.loaded = true;
      this.providers.refresh();
      this.usage.refresh();
    }
    this.notify.update(s.notify, force);
    for (const f of FIELDS) {
      const input = this.inputs.get(f.key);
      if (!input || (document.activeElement === input && !force)) continue;
      // A setting this relay does not have is left out, not shown as empty or "undefined".
      input.closest(".field").hidden = !(f.key in s);
      this.put(f, input, s);
    }
  }

  refreshRelays() {
    return this.relays.refresh();
  }
}
