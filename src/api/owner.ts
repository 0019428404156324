import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { RelayError } from "../core/errors.ts";
import { ManualClock } from "../core/clock.ts";
import type { Relay } from "../relay.ts";
import { errorResponse, jsonBody } from "./http-errors.ts";
import { sessionRoutes } from "./sessions.ts";
import { cardView } from "../approvals/approvals.ts";
import { questionView } from "../questions/ask-user.ts";
import { groupRoutes } from "./groups.ts";
import { scheduleRoutes } from "../schedules/routes.ts";
import { subscriptionRoutes } from "./subscriptions.ts";
import { timingSafeEqual } from "node:crypto";
import { pairingRoutes } from "../pairing/routes.ts";

function tokenMatches(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The owner API (contract §3): JSON over HTTP with the owner's bearer token. */
export function ownerApi(relay: Relay): Hono {
  const app = new Hono();
  app.onError((err, c) => errorResponse(c, err));
  app.notFound((c) => c.json({ ok: false, code: "REMOTE_RELAY_NOT_FOUND", error: `No route ${c.req.method} ${c.req.path}.` }, 404));

  app.get("/health", (c) => c.json({ ok: true, name: relay.name, version: relay.version }));

  app.use("*", async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const token = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? c.req.query("token");
    if (!tokenMatches(token, relay.ownerToken)) {
      return c.json({ ok: false, code: "REMOTE_RELAY_AUTH", error: "The owner token is missing or wrong." }, 401);
    }
    await next();
  });

  // Secrets (provider keys) are shown masked: publicView, never get().
  app.get("/settings", (c) => c.json(relay.settings.publicView()));
  app.patch("/settings", async (c) => {
    relay.settings.update(await jsonBody(c));
    relay.bus.emit({ type: "settings.updated" });
    return c.json(relay.settings.publicView());
  });

  app.route("/sessions", sessionRoutes(relay));
  app.route("/groups", groupRoutes(relay));
  app.route("/schedules", scheduleRoutes(relay));
  app.route("/subscriptions", subscriptionRoutes(relay));
  app.route("/", pairingRoutes(relay));

  app.get("/cards", (c) => {
    const session = c.req.query("session");
    return c.json({ cards: relay.approvals.pending(session || undefined).map(cardView) });
  });
  app.post("/cards/:id", async (c) => {
    const b = z.object({ decision: z.enum(["allow", "deny"]) }).safeParse(await jsonBody(c));
    if (!b.success) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", 'decision must be "allow" or "deny". Nothing was decided.');
    return c.json(cardView(relay.approvals.decide(c.req.param("id"), b.data.decision)));
  });

  app.get("/inbox", (c) => c.json({ questions: relay.questions.pending().map(questionView) }));
  app.post("/questions/:id", async (c) => {
    const b = z.object({ choice: z.string().optional(), answer: z.string().max(100_000).optional(), dismiss: z.boolean().optional() }).strict().safeParse(await jsonBody(c));
    if (!b.success) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", "Answer with choice, answer or dismiss. Nothing was answered.");
    return c.json(questionView(relay.questions.answer(c.req.param("id"), { ...b.data, via: relay.name })));
  });

  app.get("/stream", (c) =>
    streamSSE(c, async (stream) => {
      const queue: string[] = [];
      let wake: (() => void) | null = null;
      const off = relay.bus.on((e) => {
        if (e.type === "turn.progress" && queue.length > 200) return;
        queue.push(JSON.stringify(e));
        wake?.();
      });
      stream.onAbort(() => {
        off();
        wake?.();
      });
      await stream.writeSSE({ event: "hello", data: JSON.stringify({ name: relay.name, version: relay.version }) });
      while (!stream.aborted) {
        if (!queue.length) await new Promise<void>((r) => { wake = r; setTimeout(r, 15_000).unref(); });
        wake = null;
        if (!queue.length) {
          await stream.writeSSE({ event: "ping", data: "{}" });
          continue;
        }
        while (queue.length) await stream.writeSSE({ event: "change", data: queue.shift()! });
      }
      off();
    }),
  );

  app.post("/test/clock", async (c) => {
    if (!(relay.clock instanceof ManualClock)) return c.json({ ok: false, code: "REMOTE_RELAY_NOT_FOUND", error: "The relay runs on the real clock (start it with --test-clock)." }, 404);
    const b = await jsonBody(c);
    const clock = relay.clock;
    if (typeof b.advanceMs === "number" && Number.isFinite(b.advanceMs) && b.advanceMs >= 0) await clock.advance(b.advanceMs);
    else if (typeof b.set === "string" && !Number.isNaN(Date.parse(b.set))) await clock.set(Date.parse(b.set));
    else throw new RelayError("REMOTE_RELAY_INVALID_INPUT", "Give { advanceMs: milliseconds ≥ 0 } or { set: ISO time }. The clock did not move.");
    // Let work that the step released (promises, waiters) run before answering.
    await new Promise((r) => setImmediate(r));
    return c.json({ now: new Date(clock.now()).toISOString() });
  });

  return app;
}
