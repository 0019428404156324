// Settings → Usage: per-provider meters as relay_tool's `usage` reports them (GET /api/usage).
import { h } from "./dom.js";

export class UsageSection {
  constructor(ctx) {
    this.ctx = ctx;
    this.list = h("div", { class: "usage-list" });
    this.el = h("section", { class: "usage", id: "usage", "aria-labelledby": "usage-title" }, h("h3", { id: "usage-title", class: "panel-sub" }, "Usage"), this.list);
  }

  async refresh() {
    let u;
    try {
      u = await this.ctx.call("GET", "/api/usage", undefined, { quiet: true });
    } catch {
      this.el.hidden = true;
      return;
    }
    this.el.hidden = false;
    const shown = u.providers.filter((p) => p.status !== "not_set_up");
    this.list.replaceChildren(...(shown.length ? shown.map((p) => this.row(p)) : [h("p", { class: "empty-note" }, "No provider is set up yet.")]),
      u.claudeLimitsPaused ? h("p", { class: "prov-reason" }, "Claude sessions are paused at their plan limits.") : null);
  }

  row(p) {
    const meters = p.meters ?? [];
    return h("div", { class: "usage-row", role: "group", "aria-label": `Usage of ${p.name}` },
      h("strong", {}, p.name),
      meters.length ? meters.map((m) => {
        const label = m.label ?? m.name ?? m.window ?? "usage";
        const pct = m.percent ?? (m.limit ? (100 * (m.used ?? 0)) / m.limit : null);
        return h("div", { class: "usage-meter" },
          h("span", {}, label),
          pct != null ? h("meter", { min: 0, max: 100, value: pct, "aria-label": `${p.name} ${label}` }) : null,
          h("span", { class: "field-help" }, [pct != null ? `${Math.round(pct)}%` : null, m.used != null && m.limit != null ? `${m.used} of ${m.limit}${m.unit ? ` ${m.unit}` : ""}` : null, m.resetsAt ? `resets ${new Date(m.resetsAt).toLocaleString()}` : null].filter(Boolean).join(" · ")));
      }) : h("span", { class: "field-help" }, p.note ?? "Not tracked."));
  }
}
