import { Hono } from "hono";
import { RelayError } from "../core/errors.ts";
import type { ApiDeps } from "./deps.ts";
import { ENDED_LISTED_MS } from "../watching/types.ts";

/** Owner routes for watching (contract §3, §10.5): the list of subscriptions (a watcher's,
 * or the relay's) and the Unsubscribe button. */
export function subscriptionRoutes({ clock, watching }: Pick<ApiDeps, "clock" | "watching">): Hono {
  const app = new Hono();

  app.get("/", (c) => {
    // ?watcher= → what list_subscriptions shows that conversation; without it every active
    // subscription of the relay (contract §10.5).
    const watcher = c.req.query("watcher");
    const rows = watcher ? watching.listFor(watcher, clock.now() - ENDED_LISTED_MS) : watching.active();
    return c.json({ subscriptions: rows.map((r) => watching.view(r)) });
  });

  app.delete("/:id", (c) => {
    const id = c.req.param("id");
    const row = watching.get(id);
    if (!row)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No subscription ${id.slice(0, 60)} on this relay. Nothing was changed.`,
      );
    if (row.ended_at == null) watching.end([id], "unsubscribed");
    return c.json(watching.view(watching.get(id)!));
  });

  return app;
}
