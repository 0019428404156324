import { defineAction } from "./define.ts";
import type { ActionServices } from "./services.ts";
import { providerAvailability, providerList } from "../providers/catalog.ts";
import { metersFor, monthlyUsage } from "../providers/usage-meters.ts";

/** Usage per provider: meters from what its agents reported this month (tokens, cost) and,
 * for the Claude API key, its monthly spend against the cap; and every budget with its spend. A provider whose agents never
 * reported usage says it is not tracked. Account names, addresses and tokens never appear. */
export const usage = defineAction({
  name: "usage",
  since: "0.9.10",
  write: false,
  level: "read",
  nothing: "Nothing was done.",
  args: {},
  handler: (ctx) => usageReport(ctx),
});

/** The answer of `usage`; the owner's page reads the same (GET /api/usage). */
export function usageReport({
  identity,
  settings: store,
  clock,
  sessionReads,
  budgets,
}: Pick<ActionServices, "identity" | "settings" | "clock" | "sessionReads" | "budgets">) {
  const settings = store.get() as unknown as Record<string, unknown>;
  const now = clock.now();
  const reported = monthlyUsage(sessionReads, now);
  const providers = providerList().map((p) => {
    const a = providerAvailability(p.id, { settings });
    const meters = metersFor(p.id, reported.get(p.id), settings, now);
    const status = !a.available && !meters.length ? "not_set_up" : meters.length ? "tracked" : "not_tracked";
    return {
      id: p.id,
      name: p.name,
      status,
      meters,
      note:
        status === "not_set_up"
          ? a.reason
          : status === "not_tracked"
            ? `${p.name} has reported no usage on this relay this month.`
            : `What ${p.name}'s agents reported this month (UTC).`,
    };
  });
  const tracked = providers.filter((p) => p.status === "tracked").length;
  return {
    summary: `usage → ${identity.name}: ${providers.filter((p) => p.status !== "not_set_up").length} providers set up, ${tracked} tracked`,
    providers,
    claudeLimitsPaused: false,
    // Every budget (contract §10.4): an agent can look before costly work.
    budgets: budgets.views(),
  };
}
