import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { RelayError } from "../core/errors.ts";
import { ManualClock } from "../core/clock.ts";
import type { Relay } from "../relay.ts";
import { errorResponse, jsonBody, MAX_BODY_KEY } from "./http-errors.ts";
import { maskResponse } from "./mask-response.ts";
import { StreamTickets } from "./stream-tickets.ts";
import { sessionRoutes } from "./sessions.ts";
import { cardView } from "../approvals/approvals.ts";
import { questionView } from "../questions/ask-user.ts";
import { groupRoutes } from "./groups.ts";
import { scheduleRoutes } from "../schedules/routes.ts";
import { subscriptionRoutes } from "./subscriptions.ts";
import { providerRoutes } from "./providers.ts";
import { usageRoutes } from "./usage.ts";
import { timingSafeEqual } from "node:crypto";
import { pairingRoutes } from "../pairing/routes.ts";
import { sessionFileRoutes } from "./session-files.ts";
import { cloudRoutes } from "../cloud/routes.ts";
import { searchRoutes } from "./search.ts";
import { unarchiveRoutes } from "./unarchive.ts";
import { ownerScheduleRoutes } from "./schedules-owner.ts";
import { ownerSubscriptionRoutes } from "./subscriptions-owner.ts";
import { usageHistoryRoutes } from "./usage-history.ts";
import { worktreeRoutes } from "./worktrees.ts";

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

  const tickets = new StreamTickets();
  app.use("*", async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    // The token only in the Authorization header: URLs end up in logs, history and Referer.
    // The one exception, the SSE stream (EventSource sends no headers), takes a short-lived
    // ticket made with the token (POST /api/stream-ticket).
    const token = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
    // Images the page shows (<img src>, GET /api/sessions/:id/files) cannot send headers either.
    const ticketOk = !token && c.req.method === "GET" && /\/api\/(stream|sessions\/[^/]+\/files)$/.test(c.req.path) && tickets.valid(c.req.query("ticket"));
    if (!ticketOk && !tokenMatches(token, relay.ownerToken)) {
      return c.json({ ok: false, code: "REMOTE_RELAY_AUTH", error: "The owner token is missing or wrong (send it as Authorization: Bearer …)." }, 401);
    }
    c.set(MAX_BODY_KEY as never, (relay.settings.get().maxBodyMb * 1024 * 1024) as never);
    await next();
    await maskResponse(c, relay);
  });

  app.post("/stream-ticket", (c) => c.json(tickets.make()));

  // Secrets (provider keys) are shown masked: publicView, never get().
  app.get("/settings", (c) => c.json(relay.settings.publicView()));
  app.patch("/settings", async (c) => {
    relay.settings.update(await jsonBody(c));
    relay.bus.emit({ type: "settings.updated" });
    return c.json(relay.settings.publicView());
  });

  app.route("/sessions", sessionRoutes(relay));
  app.route("/sessions", sessionFileRoutes(relay.sessions));
  app.route("/sessions", cloudRoutes(relay.sessions));
  app.route("/sessions", unarchiveRoutes(relay));
  app.route("/sessions", worktreeRoutes({ worktrees: relay.worktrees, session: (id) => relay.sessions.get(id), mergeTestCommand: () => relay.settings.get().mergeTestCommand, longestWaitSeconds: () => relay.settings.get().longestWaitMinutes * 60, now: () => relay.clock.now() }));
  app.route("/search", searchRoutes(relay));
  app.route("/groups", groupRoutes(relay));
  app.route("/schedules", scheduleRoutes(relay));
  app.route("/schedules", ownerScheduleRoutes(relay));
  app.route("/subscriptions", subscriptionRoutes(relay));
  app.route("/subscriptions", ownerSubscriptionRoutes(relay));
  app.route("/", pairingRoutes(relay));
  app.route("/providers", providerRoutes(relay));
  app.route("/usage", usageRoutes(relay));
  app.route("/usage", usageHistoryRoutes(relay));

  app.get("/cards", (c) => {
    const session = c.req.query("session");
    return c.json({ cards: relay.approvals.pending(session || undefined).map(cardView) });
  });
  app.post("/cards/:id", async (c) => {
    // A permission card (a CLI asking before a tool) may also be answered with one of its options.
    const body = await jsonBody(c);
    if ("decision" in body && "optionId" in body) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", "Answer with decision or with optionId, not both: they may say different things. Nothing was decided.");
    const b = z.union([z.object({ decision: z.enum(["allow", "deny"]) }), z.object({ optionId: z.string().min(1).max(200) })]).safeParse(body);
    if (!b.success) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", 'decision must be "allow" or "deny" (or, for a permission card, optionId one of its options). Nothing was decided.');
    return c.json(cardView(relay.approvals.decide(c.req.param("id"), "optionId" in b.data ? { optionId: b.data.optionId } : b.data.decision)));
  });

  // Questions kept on paired relays (asked from here) are listed and answered too (pairing/remote-inbox.ts).
  app.get("/inbox", async (c) => c.json({ questions: [...relay.questions.pending().map(questionView), ...(await relay.pairing.inbox.list())] }));
  app.post("/questions/:id", async (c) => {
    const b = z.object({ choice: z.string().optional(), answer: z.string().max(100_000).optional(), dismiss: z.boolean().optional() }).strict().safeParse(await jsonBody(c));
    if (!b.success) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", "Answer with choice, answer or dismiss. Nothing was answered.");
    if (!relay.questions.get(c.req.param("id")) && relay.pairing.inbox.holds(c.req.param("id"))) return c.json(await relay.pairing.inbox.answer(c.req.param("id"), b.data));
    return c.json(questionView(relay.questions.answer(c.req.param("id"), { ...b.data, via: relay.name })));
  });

  app.get("/stream", (c) =>
    streamSSE(c, async (stream) => {
      const queue: { event: string; data: string }[] = [];
      let wake: (() => void) | null = null;
      const off = relay.bus.on((e) => {
        // A streamed chunk goes out as turn.delta (the page appends it). A client far behind
        // loses chunks; each carries its offset, so the page sees the gap and re-reads.
        // Secrets are masked on the way out (a masked chunk's length changes: the page re-reads).
        if (e.type === "turn.progress") {
          if (queue.length > 2000) return;
          queue.push({ event: "turn.delta", data: relay.secretMask.maskJson(JSON.stringify({ sessionId: e.sessionId, turnId: e.turnId, text: e.text ?? "", offset: e.offset ?? 0 })) });
        } else queue.push({ event: "change", data: relay.secretMask.maskJson(JSON.stringify(e)) });
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
        while (queue.length) await stream.writeSSE(queue.shift()!);
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
