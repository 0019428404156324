import { Hono } from "hono";
import { usageReport } from "../actions/usage.ts";

/** GET /api/usage: the owner's page reads the same per-provider meters as relay_tool's
 * `usage` action (it reads only the relay, not the calling conversation). */
export function usageRoutes(d: Parameters<typeof usageReport>[0]): Hono {
  const app = new Hono();
  app.get("/", (c) => {
    const { summary: _summary, ...rest } = usageReport(d);
    // ?days=&by=: the page's chart of spend per local day (budgets/spend-series.ts).
    const { days, by } = c.req.query();
    if (days === undefined && by === undefined) return c.json(rest);
    return c.json({
      ...rest,
      spendOverTime: d.budgets.spendOverTime({
        days: days === undefined ? 30 : Number(days),
        by: (by ?? "provider") as "provider",
      }),
    });
  });
  return app;
}
