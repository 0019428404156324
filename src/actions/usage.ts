import type { ActionDef } from "./types.ts";
import { CATALOG, providerAvailability } from "../providers/catalog.ts";

/** Plan usage per provider. No provider here reports meters yet: each says whether it is
 * set up and that it is not tracked. Account names, addresses and tokens never appear. */
export const usage: ActionDef = {
  name: "usage",
  since: "0.9.10",
  write: false,
  level: "read",
  args: {},
  handler(ctx) {
    const settings = ctx.relay.settings.get() as unknown as Record<string, unknown>;
    const providers = Object.values(CATALOG).map((p) => {
      const a = providerAvailability(p.id, { settings });
      return {
        id: p.id,
        name: p.name,
        status: !a.available ? "not_set_up" : "not_tracked",
        meters: [],
        note: !a.available ? a.reason : `${p.name} usage is not tracked on this relay.`,
      };
    });
    return {
      summary: `usage → ${ctx.relay.name}: ${providers.filter((p) => p.status !== "not_set_up").length} providers set up, none tracked`,
      providers,
      claudeLimitsPaused: false,
    };
  },
};
