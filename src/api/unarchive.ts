import { Hono } from "hono";
import { unarchiveSession, type UnarchiveDeps } from "../sessions/unarchive.ts";

/** POST /api/sessions/:id/unarchive (contract §10.5). */
export function unarchiveRoutes(d: UnarchiveDeps): Hono {
  const app = new Hono();
  app.post("/:id/unarchive", (c) => {
    const s = unarchiveSession(d, c.req.param("id"));
    return c.json({ ok: true, session: s.id, archived: false });
  });
  return app;
}
