import { Hono } from "hono";
import { RelayError } from "../core/errors.ts";
import type { Relay } from "../relay.ts";
import { subscriptionView } from "../watching/views.ts";
import { ENDED_LISTED_MS } from "../watching/types.ts";

/** Owner routes for watching (contract §3): the watcher's list of subscriptions and its
 * Unsubscribe button. */
export function subscriptionRoutes(relay: Relay): Hono {
  const app = new Hono();
  const watch = relay.watch;

  app.get("/", (c) => {
    const watcher = c.req.query("watcher");
    if (!watcher) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", "Name the watching session: ?watcher=SESSION_ID. Nothing was listed.");
    const rows = watch.subs.listFor(watcher, relay.clock.now() - ENDED_LISTED_MS);
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
