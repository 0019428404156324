import { Hono } from "hono";
import { RelayError } from "../core/errors.ts";
import { scheduleView } from "../schedules/view.ts";
import type { ApiDeps } from "./deps.ts";

/** Owner routes: the ⏰ list of a conversation and its Cancel button (contract §3). */
export function scheduleRoutes(d: Pick<ApiDeps, "clock" | "sessions" | "schedules">): Hono {
  const app = new Hono();

  // ?session= → what list_schedules shows that conversation; without it every active schedule.
  app.get("/", (c) => {
    const session = c.req.query("session");
    const rows = session ? d.schedules.store.listFor(session, d.clock.now()) : d.schedules.store.active();
    return c.json({ schedules: rows.map((r) => scheduleView(d, r)) });
  });

  app.delete("/:id", (c) => {
    const id = c.req.param("id");
    const row = d.schedules.store.get(id);
    if (!row)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No schedule ${id.slice(0, 80)} on this relay. Nothing was cancelled.`,
      );
    if (row.ended_at != null)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `Schedule ${id} has already ended (${row.end_reason}). Nothing was cancelled.`,
      );
    d.schedules.end(id, "unscheduled");
    return c.json({ ok: true, schedule: scheduleView(d, d.schedules.store.get(id)!) });
  });

  return app;
}
