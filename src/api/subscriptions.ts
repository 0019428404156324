import { Hono } from "hono";
import { RelayError } from "../core/errors.ts";
import type { Relay } from "../relay.ts";
import { subscriptionView } from "../watching/views.ts";
import { ENDED_LISTED_MS } from "../watching/types.ts";
import { activeSubRows } from "../watching/active-subs.ts";

/** Owner routes for watching (contract §3, §10.5): the list of subscriptions (a watcher's,
 * or the relay's) and the Unsubscribe button. */
export function subscriptionRoutes(relay: Relay): Hono {
  const app = new Hono();
  const watch = relay.watch;

  app.get("/", (c) => {
    // ?watcher= → what list_subscriptions shows that conversation; without it every active
    // subscription of the relay (contract §10.5).
    const watcher = c.req.query("watcher");
    const rows = watcher ? watch.subs.listFor(watcher, relay.clock.now() - ENDED_LISTED_MS) : activeSubRows(relay.db, watch.subs);
    return c.json({ subscriptions: rows.map((r) => subscriptionView(relay, watch.subs, r)) });
  });

  app.delete("/:id", (c) => {
    const id = c.req.param("id");
    const row = watch.subs.get(id);
    if (!row) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No subscription ${id.slice(0, 60)} on this relay. Nothing was changed.`);
    if (row.ended_at == null) watch.end([id], "unsubscribed");
    return c.json(subscriptionView(relay, watch.subs, watch.subs.get(id)!));
  });

  return app;
}
