// Settings → Usage → Budgets (contract §10.4): every budget with what was spent of its limit,
// the turns it holds and when it starts again (GET /api/usage `budgets`); budgets are added
// and removed here (the `budgets` setting, PATCH /api/settings).
import { h } from "./dom.js";

const money = (v) => `$${Number(v).toFixed(2)}`;
const PER = { day: "per day", month: "per month", total: "in total" };
const SCOPES = [
  ["relay", "This relay"],
  ["provider", "A provider"],
  ["group", "A group"],
  ["session", "A session"],
];

/** A budget as the setting stores it, from its view. */
const entry = (b) => ({
  id: b.id,
  scope: b.scope,
  target: b.target,
  period: b.period,
  usd: b.limitUsd,
  tokens: b.limitTokens,
});

export class BudgetsSection {
  constructor(ctx, refresh) {
    this.ctx = ctx;
    this.refresh = refresh;
    this.views = [];
    this.list = h("div", { class: "budget-list", role: "list", "aria-label": "Budgets" });
    this.error = h("p", { class: "field-error", role: "alert", hidden: true });
    const field = (label, input) => h("label", { class: "field" }, h("span", {}, label), input);
    this.scope = h(
      "select",
      { class: "input", "aria-label": "Budget scope" },
      SCOPES.map(([v, t]) => h("option", { value: v }, t)),
    );
    this.target = h("input", {
      class: "input",
      "aria-label": "Budget target",
      placeholder: "provider, group or session id",
    });
    this.period = h(
      "select",
      { class: "input", "aria-label": "Budget period" },
      Object.entries(PER).map(([v, t]) => h("option", { value: v }, t)),
    );
    this.usd = h("input", {
      class: "input",
      type: "number",
      min: "0",
      step: "0.01",
      "aria-label": "Limit in USD",
      placeholder: "USD",
    });
    this.tokens = h("input", {
      class: "input",
      type: "number",
      min: "0",
      step: "1",
      "aria-label": "Limit in tokens",
      placeholder: "tokens",
    });
    const form = h(
      "form",
      {
        class: "budget-form",
        "aria-label": "New budget",
        onsubmit: (e) => {
          e.preventDefault();
          const num = (i) => (i.value.trim() === "" ? null : Number(i.value));
          this.save([
            ...this.views.map(entry),
            {
              scope: this.scope.value,
              target: this.scope.value === "relay" ? null : this.target.value.trim() || null,
              period: this.period.value,
              usd: num(this.usd),
              tokens: num(this.tokens),
            },
          ]).then((ok) => {
            if (ok) for (const i of [this.target, this.usd, this.tokens]) i.value = "";
          });
        },
      },
      field("For", this.scope),
      field("Target", this.target),
      field("Period", this.period),
      field("USD", this.usd),
      field("Tokens", this.tokens),
      h("button", { class: "btn", type: "submit" }, "Add budget"),
    );
    this.el = h(
      "section",
      { class: "budgets", "aria-labelledby": "budgets-title" },
      h("h4", { id: "budgets-title", class: "panel-sub" }, "Budgets"),
      h(
        "p",
        { class: "field-help" },
        "At the limit, new turns under a budget wait for you; running turns finish. You are told at 80 %.",
      ),
      this.list,
      form,
      this.error,
    );
  }

  show(views) {
    this.views = views ?? [];
    this.list.replaceChildren(
      ...(this.views.length
        ? this.views.map((b) => this.row(b))
        : [h("p", { class: "empty-note" }, "No budget is set.")]),
    );
  }

  row(b) {
    const ratios = [
      b.limitUsd ? b.spentUsd / b.limitUsd : null,
      b.limitTokens ? b.spentTokens / b.limitTokens : null,
    ].filter((x) => x != null);
    const pct = Math.min(100, Math.round(100 * Math.max(...ratios)));
    const who = b.scope === "relay" ? "this relay" : `${b.scope} ${b.target}`;
    const words = [
      b.limitUsd != null ? `${money(b.spentUsd)} of ${money(b.limitUsd)}` : null,
      b.limitTokens != null ? `${b.spentTokens.toLocaleString()} of ${b.limitTokens.toLocaleString()} tokens` : null,
      b.heldTurns ? `${b.heldTurns} held turn${b.heldTurns === 1 ? "" : "s"}` : null,
      b.resetsAt ? `resets ${new Date(b.resetsAt).toLocaleString()}` : null,
    ]
      .filter(Boolean)
      .join(" · ");
    return h(
      "div",
      { class: "usage-row budget-row", role: "listitem", "aria-label": `Budget ${b.id}` },
      h("strong", {}, `${b.id} · ${who} · ${PER[b.period]}`),
      h("meter", { min: 0, max: 100, low: 80, high: 99, optimum: 0, value: pct, "aria-label": `Budget ${b.id} spent` }),
      h("span", { class: "field-help" }, words),
      h(
        "button",
        {
          class: "btn btn-link",
          type: "button",
          onclick: () => this.save(this.views.filter((x) => x.id !== b.id).map(entry)),
        },
        "Remove",
      ),
    );
  }

  async save(list) {
    this.error.hidden = true;
    try {
      await this.ctx.call("PATCH", "/api/settings", { budgets: list }, { quiet: true });
    } catch (e) {
      this.error.textContent = e.message;
      this.error.hidden = false;
      return false;
    }
    await this.refresh();
    return true;
  }
}
