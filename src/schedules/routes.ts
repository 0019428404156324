import { Hono } from "hono";
import { RelayError } from "../core/errors.ts";
import type { Relay } from "../relay.ts";
import { scheduleView } from "./view.ts";

/** Owner routes: the ⏰ list of a conversation and its Cancel button (contract §3). */
export function scheduleRoutes(relay: Relay): Hono {
  const app = new Hono();

  // ?session= → what list_schedules shows that conversation; without it every active schedule.
  app.get("/", (c) => {
    const session = c.req.query("session");
    const rows = session ? relay.schedules.store.listFor(session, relay.clock.now()) : relay.schedules.store.active();
    return c.json({ schedules: rows.map((r) => scheduleView(relay, r)) });
  });

  app.delete("/:id", (c) => {
    const id = c.req.param("id");
    const row = relay.schedules.store.get(id);
    if (!row) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No schedule ${id.slice(0, 80)} on this relay. Nothing was cancelled.`);
    if (row.ended_at != null) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `Schedule ${id} has already ended (${row.end_reason}). Nothing was cancelled.`);
    relay.schedules.end(id, "unscheduled");
    return c.json({ ok: true, schedule: scheduleView(relay, relay.schedules.store.get(id)!) });
  });

  return app;
}
