import { Hono } from "hono";
import type { Clock } from "../core/clock.ts";
import { RelayError } from "../core/errors.ts";
import type { Notify } from "../notify/notify.ts";
import { type CardDecision, cardDecision } from "./card-decision.ts";
import { errorResponse, jsonBody } from "./http-errors.ts";

// Web Push's owner routes (contract §10.3) and the one route a notification's buttons call.

/** Under the owner token: the VAPID key and the browsers' subscriptions. */
export function pushRoutes(notify: Pick<Notify, "publicKey" | "subscriptions">): Hono {
  const app = new Hono();
  app.get("/push/key", async (c) => c.json({ key: await notify.publicKey() }));
  app.post("/push/subscriptions", async (c) => {
    const row = notify.subscriptions.add(await jsonBody(c));
    return c.json({ endpoint: row.endpoint }, 201);
  });
  // `{ endpoint }`: that browser's; no body: every subscription.
  app.delete("/push/subscriptions", async (c) => {
    const body = await jsonBody(c);
    if (body.endpoint !== undefined && typeof body.endpoint !== "string")
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        "endpoint must be the subscription's address. Nothing was removed.",
      );
    return c.json({ removed: notify.subscriptions.remove(body.endpoint as string | undefined) });
  });
  return app;
}

export interface CardActDeps {
  /** Runs `fn` in one SQLite transaction. */
  transaction<T>(fn: () => T): T;
  clock: Pick<Clock, "now">;
  tokens: Pick<Notify["tokens"], "verifyAndConsume">;
  /** Decides the card as POST /api/cards/:id does; throws when it is no longer pending. */
  decide(cardId: string, decision: CardDecision): unknown;
}

/** Requests to /act a minute, relay-wide: a token is 256 random bits, but nobody gets to try many. */
export const ACT_PER_MINUTE = 60;
const ACT_BODY_BYTES = 16 * 1024;

/** `POST /api/cards/:id/act { actionToken, optionId | decision }` WITHOUT the owner token:
 * the card's one-time action token stands for it. Mounted before the owner API's token check.
 * The token is used up and the card decided in one transaction: a body the card refuses (an
 * option it does not have) leaves the token as it was. */
export function cardActRoute(d: CardActDeps): Hono {
  const app = new Hono();
  app.onError((err, c) => errorResponse(c, err));
  let window = { start: 0, count: 0 };
  app.post("/cards/:id/act", async (c) => {
    const now = d.clock.now();
    if (now - window.start >= 60_000) window = { start: now, count: 0 };
    if (++window.count > ACT_PER_MINUTE)
      throw new RelayError(
        "REMOTE_RELAY_LIMIT",
        `More than ${ACT_PER_MINUTE} notification actions in a minute; try again in a minute. Nothing was decided.`,
      );
    c.set("oarMaxBodyBytes" as never, ACT_BODY_BYTES as never);
    const body = await jsonBody(c);
    const { actionToken, ...rest } = body;
    const decision = cardDecision(rest);
    const id = c.req.param("id").slice(0, 200);
    let card: unknown;
    d.transaction(() => {
      d.tokens.verifyAndConsume(id, actionToken);
      card = d.decide(id, decision);
    });
    return c.json(card);
  });
  return app;
}
