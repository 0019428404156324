import { Hono } from "hono";
import { RelayError } from "../core/errors.ts";
import { checkSubscribe, NOTHING } from "../watching/options.ts";
import type { ApiDeps } from "./deps.ts";
import { jsonBody, refuseUnknownFields } from "./http-errors.ts";

// POST /api/subscriptions (contract §10.5): the owner makes a conversation watch sessions,
// with relay_tool `subscribe`'s checks and words (watching/options.ts, add-subscription.ts)
// and no card (the owner is the one who approves). GET and DELETE: subscriptions.ts.

const KEYS = new Set([
  "watcher",
  "sessions",
  "events",
  "once",
  "match",
  "digest_minutes",
  "quiet_hours",
  "exclude",
  "stalled_minutes",
  "heartbeat_minutes",
]);

export function ownerSubscriptionRoutes(d: Pick<ApiDeps, "identity" | "sessions" | "watching">): Hono {
  const app = new Hono();
  app.post("/", async (c) => {
    const { watcher: id, ...args } = await jsonBody(c);
    refuseUnknownFields(
      args,
      KEYS,
      "a subscription takes watcher, sessions, events, once, match, digest_minutes, quiet_hours, exclude, stalled_minutes and heartbeat_minutes",
      NOTHING,
    );
    if (typeof id !== "string" || !id)
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `subscribe needs watcher: the id of the conversation to wake. ${NOTHING}`,
      );
    const watcher = d.sessions.get(id);
    if (!watcher)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No session "${id.slice(0, 80)}" on relay "${d.identity.name}" to be the watcher. ${NOTHING}`,
      );
    if (watcher.archived_at)
      throw new RelayError(
        "REMOTE_RELAY_ARCHIVED",
        `Session "${watcher.title}" (${watcher.id}) is archived. ${NOTHING}`,
      );
    const checked = checkSubscribe(
      { name: d.identity.name, version: d.identity.version, sessions: d.sessions },
      watcher,
      args,
    );
    const row = d.watching.subscribe(checked.sub);
    return c.json(d.watching.view(row), 201);
  });
  return app;
}
