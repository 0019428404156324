// Usage and cost over time as a small chart (uPlot, loaded the first time one is shown):
// per day and per provider, from GET /api/usage/history, for the relay (Settings → Usage) or
// one session (its Usage panel). Cost when agents reported one, else tokens; a table below
// says the same in numbers.
import { h } from "./dom.js";

const DAY = 86_400_000;
const COLORS = ["#3b5bdb", "#2f9e44", "#e8590c", "#ae3ec9", "#1098ad", "#c92a2a", "#5c940d", "#f08c00"];

let lib = null;
function loadUplot() {
  if (!document.querySelector('link[href="/app/vendor-uplot.css"]'))
    document.head.append(h("link", { rel: "stylesheet", href: "/app/vendor-uplot.css" }));
  lib ??= import("./vendor-uplot.js").then((m) => m.default);
  return lib;
}

const dayKey = (t) => new Date(t).toLocaleDateString("sv-SE");

/** { session?, days?, title } → a section that fills itself. */
export function usageChart(ctx, { session, days = 30, title }) {
  const plot = h("div", { class: "chart", role: "img", "aria-label": title });
  const note = h("p", { class: "field-help" });
  const table = h("div", { class: "chart-table" });
  const box = h(
    "section",
    { class: "usage-chart", "aria-label": title },
    h("h3", { class: "panel-sub" }, title),
    plot,
    note,
    table,
  );
  const q = `/api/usage/history?days=${days}${session ? `&session=${encodeURIComponent(session)}` : ""}`;
  Promise.all([ctx.call("GET", q, undefined, { quiet: true }), loadUplot()]).then(
    ([r, uPlot]) => {
      const rows = r.usage ?? [];
      if (!rows.length) {
        plot.hidden = true;
        note.textContent = `No usage reported in the last ${days} days.`;
        return;
      }
      const providers = [...new Set(rows.map((x) => x.provider))];
      const name = (id) => ctx.catalog[id]?.name ?? id;
      const byCost = rows.some((x) => x.costUsd > 0);
      const value = (x) => (byCost ? x.costUsd : x.inputTokens + x.outputTokens);
      const end = new Date();
      end.setHours(0, 0, 0, 0);
      const xs = Array.from({ length: days }, (_, i) => end.getTime() - (days - 1 - i) * DAY);
      const idx = new Map(xs.map((t, i) => [dayKey(t), i]));
      const series = providers.map((p) => {
        const ys = xs.map(() => 0);
        for (const x of rows) if (x.provider === p && idx.has(x.day)) ys[idx.get(x.day)] += value(x);
        return ys;
      });
      const width = Math.max(260, Math.min(760, plot.clientWidth || box.clientWidth || 600));
      const unit = byCost ? "USD" : "tokens";
      // The page's own colours, so the axes read in dark mode too.
      const css = getComputedStyle(document.documentElement);
      const ink = css.getPropertyValue("--muted").trim() || "#667085";
      const grid = { stroke: css.getPropertyValue("--line").trim() || "#e3e7ee", width: 1 };
      new uPlot(
        {
          width,
          height: 180,
          scales: { x: { time: true } },
          axes: [
            { stroke: ink, grid, ticks: grid },
            {
              stroke: ink,
              grid,
              ticks: grid,
              label: unit,
              size: 60,
              values: (_, ticks) =>
                ticks.map((v) =>
                  byCost
                    ? `$${v >= 1 ? v.toFixed(0) : Number(v.toPrecision(2))}`
                    : v >= 1000
                      ? `${Math.round(v / 1000)}k`
                      : String(v),
                ),
            },
          ],
          series: [
            { value: (_, t) => (t == null ? "" : new Date(t * 1000).toLocaleDateString()) },
            ...providers.map((p, i) => ({
              label: name(p),
              stroke: COLORS[i % COLORS.length],
              fill: `${COLORS[i % COLORS.length]}22`,
              width: 2,
              points: { show: true, size: 4 },
              value: (_, v) =>
                v == null ? "" : byCost ? `$${v.toFixed(4)}` : `${Math.round(v).toLocaleString()} tokens`,
            })),
          ],
        },
        [xs.map((t) => t / 1000), ...series],
        plot,
      );
      note.textContent = `${byCost ? "Cost" : "Tokens"} per day over the last ${days} days, as the agents reported them.`;
      const sum = (p, k) => rows.filter((x) => x.provider === p).reduce((n, x) => n + x[k], 0);
      table.replaceChildren(
        h(
          "table",
          { class: "usage-table" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", {}, "Provider"),
              h("th", {}, "Turns"),
              h("th", {}, "Tokens in"),
              h("th", {}, "Tokens out"),
              h("th", {}, "Cost"),
            ),
          ),
          h(
            "tbody",
            {},
            providers.map((p) =>
              h(
                "tr",
                {},
                h("td", {}, name(p)),
                h("td", {}, String(sum(p, "turns"))),
                h("td", {}, sum(p, "inputTokens").toLocaleString()),
                h("td", {}, sum(p, "outputTokens").toLocaleString()),
                h("td", {}, `$${sum(p, "costUsd").toFixed(4)}`),
              ),
            ),
          ),
        ),
      );
    },
    (e) => {
      plot.hidden = true;
      note.textContent = `The chart could not be drawn: ${e.message}`;
    },
  );
  return box;
}
