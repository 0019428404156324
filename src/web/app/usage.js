// Settings → Usage: per-provider meters as relay_tool's `usage` reports them (GET /api/usage),
// the budgets (budgets.js), and usage and cost over time per provider as a chart (usage-chart.js).
import { h } from "./dom.js";
import { usageChart } from "./usage-chart.js";
import { BudgetsSection } from "./budgets.js";

const amount = (v, unit) =>
  unit === "USD" ? `$${Number(v).toFixed(2)}` : `${Number(v).toLocaleString()}${unit ? ` ${unit}` : ""}`;

export class UsageSection {
  constructor(ctx) {
    this.ctx = ctx;
    this.list = h("div", { class: "usage-list" });
    this.chart = h("div", { class: "usage-chart-slot" });
    this.budgets = new BudgetsSection(ctx, () => this.refresh());
    this.el = h(
      "section",
      { class: "usage", id: "usage", "aria-labelledby": "usage-title" },
      h("h3", { id: "usage-title", class: "panel-sub" }, "Usage"),
      this.list,
      this.budgets.el,
      this.chart,
    );
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
    // (replaceChildren would write a null as the text "null": only nodes go in.)
    this.list.replaceChildren(
      ...(shown.length
        ? shown.map((p) => this.row(p))
        : [h("p", { class: "empty-note" }, "No provider is set up yet.")]),
      ...(u.claudeLimitsPaused
        ? [h("p", { class: "prov-reason" }, "Claude sessions are paused at their plan limits.")]
        : []),
    );
    this.budgets.show(u.budgets);
    this.chart.replaceChildren(usageChart(this.ctx, { title: "Over the last 30 days" }));
  }

  row(p) {
    const meters = p.meters ?? [];
    return h(
      "div",
      { class: "usage-row", role: "group", "aria-label": `Usage of ${p.name}` },
      h("strong", {}, p.name),
      meters.length
        ? meters.map((m) => {
            const label = m.label ?? m.name ?? m.window ?? "usage";
            const pct =
              m.percent ??
              (m.utilization != null ? m.utilization * 100 : m.limit ? (100 * (m.used ?? 0)) / m.limit : null);
            // Only what is known is said: no "null" for a limit a meter does not have.
            const words = [
              m.used != null
                ? m.limit != null
                  ? `${amount(m.used, m.unit)} of ${amount(m.limit, m.unit)}`
                  : amount(m.used, m.unit)
                : null,
              pct != null ? `${Math.round(pct)}%` : null,
              m.resetsAt ? `resets ${new Date(m.resetsAt).toLocaleDateString()}` : null,
            ]
              .filter(Boolean)
              .join(" · ");
            return h(
              "div",
              { class: "usage-meter" },
              h("span", {}, label),
              pct != null ? h("meter", { min: 0, max: 100, value: pct, "aria-label": `${p.name} ${label}` }) : null,
              words ? h("span", { class: "field-help" }, words) : null,
            );
          })
        : h("span", { class: "field-help" }, p.note || "Not tracked."),
    );
  }
}
