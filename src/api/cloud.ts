import { Hono } from "hono";
import { RelayError } from "../core/errors.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import { pushWorkspace } from "../cloud/push.ts";

/** Owner route: `POST /api/sessions/:id/push` pushes a Claude Cloud session's branch back. */
export function cloudRoutes(sessions: SessionStore): Hono {
  const app = new Hono();
  app.post("/:id/push", async (c) => {
    const s = sessions.get(c.req.param("id"));
    if (!s)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No session "${c.req.param("id").slice(0, 80)}" on this relay. Nothing was pushed.`,
      );
    return c.json(await pushWorkspace(s));
  });
  return app;
}
