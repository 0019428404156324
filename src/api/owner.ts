import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { RelayError } from "../core/errors.ts";
import type { ApiDeps } from "./deps.ts";
import { errorResponse, jsonBody, MAX_BODY_KEY } from "./http-errors.ts";
import { maskResponse } from "./mask-response.ts";
import { StreamTickets } from "./stream-tickets.ts";
import { sessionRoutes } from "./sessions.ts";
import { cardView } from "../approvals/approvals.ts";
import { questionView } from "../questions/ask-user.ts";
import { groupRoutes } from "./groups.ts";
import { scheduleRoutes } from "./schedules.ts";
import { subscriptionRoutes } from "./subscriptions.ts";
import { providerRoutes } from "./providers.ts";
import { usageRoutes } from "./usage.ts";
import { timingSafeEqual } from "node:crypto";
import { pairingRoutes } from "./relays.ts";
import { sessionFileRoutes } from "./session-files.ts";
import { cloudRoutes } from "./cloud.ts";
import { searchRoutes } from "./search.ts";
import { unarchiveRoutes } from "./unarchive.ts";
import { ownerScheduleRoutes } from "./schedules-owner.ts";
import { ownerSubscriptionRoutes } from "./subscriptions-owner.ts";
import { usageHistoryRoutes } from "./usage-history.ts";
import { cardDecision } from "./card-decision.ts";
import { pushRoutes } from "./push.ts";
import { worktreeRoutes } from "./worktrees.ts";

function tokenMatches(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The owner API (contract §3): JSON over HTTP with the owner's bearer token. */
export function ownerApi(d: ApiDeps): Hono {
  const app = new Hono();
  app.onError((err, c) => errorResponse(c, err));
  app.notFound((c) =>
    c.json({ ok: false, code: "REMOTE_RELAY_NOT_FOUND", error: `No route ${c.req.method} ${c.req.path}.` }, 404),
  );

  app.get("/health", (c) => c.json({ ok: true, name: d.identity.name, version: d.identity.version }));

  const tickets = new StreamTickets();
  app.use("*", async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    // The token only in the Authorization header: URLs end up in logs, history and Referer.
    // The one exception, the SSE stream (EventSource sends no headers), takes a short-lived
    // ticket made with the token (POST /api/stream-ticket).
    const token = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
    // Images the page shows (<img src>, GET /api/sessions/:id/files) cannot send headers either.
    const ticketOk =
      !token &&
      c.req.method === "GET" &&
      /\/api\/(stream|sessions\/[^/]+\/files)$/.test(c.req.path) &&
      tickets.valid(c.req.query("ticket"));
    if (!ticketOk && !tokenMatches(token, d.ownerToken)) {
      return c.json(
        {
          ok: false,
          code: "REMOTE_RELAY_AUTH",
          error: "The owner token is missing or wrong (send it as Authorization: Bearer …).",
        },
        401,
      );
    }
    c.set(MAX_BODY_KEY as never, (d.settings.get().maxBodyMb * 1024 * 1024) as never);
    await next();
    await maskResponse(c, d);
  });

  app.post("/stream-ticket", (c) => c.json(tickets.make()));

  // Secrets (provider keys) are shown masked: publicView, never get().
  app.get("/settings", (c) => c.json(d.settings.publicView()));
  app.patch("/settings", async (c) => {
    d.settings.update(await jsonBody(c));
    d.bus.emit({ type: "settings.updated" });
    return c.json(d.settings.publicView());
  });

  app.route("/sessions", sessionRoutes(d));
  app.route("/sessions", sessionFileRoutes(d.sessions));
  app.route("/sessions", cloudRoutes(d.sessions));
  app.route("/sessions", unarchiveRoutes(d));
  app.route(
    "/sessions",
    worktreeRoutes({
      worktrees: d.worktrees,
      session: (id) => d.sessions.get(id),
      mergeTestCommand: () => d.settings.get().mergeTestCommand,
      longestWaitSeconds: () => d.settings.get().longestWaitMinutes * 60,
      now: () => d.clock.now(),
    }),
  );
  app.route("/search", searchRoutes(d));
  app.route("/groups", groupRoutes(d));
  app.route("/schedules", scheduleRoutes(d));
  app.route("/schedules", ownerScheduleRoutes(d));
  app.route("/subscriptions", subscriptionRoutes(d));
  app.route("/subscriptions", ownerSubscriptionRoutes(d));
  app.route("/", pairingRoutes(d));
  app.route("/providers", providerRoutes(d));
  app.route("/usage", usageRoutes(d));
  app.route("/usage", usageHistoryRoutes(d));
  app.route("/", pushRoutes(d.notify));

  app.get("/cards", (c) => {
    const session = c.req.query("session");
    return c.json({ cards: d.approvals.pending(session || undefined).map(cardView) });
  });
  app.post("/cards/:id", async (c) => {
    const body = await jsonBody(c);
    // A budget card (a turn held by a budget): raise / allow_once / stop (budgets/holds.ts).
    if (d.approvals.get(c.req.param("id"))?.kind === "budget")
      return c.json(cardView(d.budgets.decide(c.req.param("id"), body)));
    // A permission card (a CLI asking before a tool) may also be answered with one of its options.
    return c.json(cardView(d.approvals.decide(c.req.param("id"), cardDecision(body))));
  });

  // Questions kept on paired relays (asked from here) are listed and answered too (pairing/remote-inbox.ts).
  app.get("/inbox", async (c) =>
    c.json({
      questions: [...d.questions.pending().map(questionView), ...(await d.pairing.inbox.list())],
      notices: d.budgets.pendingNotices(),
    }),
  );
  app.post("/questions/:id", async (c) => {
    const b = z
      .object({
        choice: z.string().optional(),
        answer: z.string().max(100_000).optional(),
        dismiss: z.boolean().optional(),
      })
      .strict()
      .safeParse(await jsonBody(c));
    if (!b.success)
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        "Answer with choice, answer or dismiss. Nothing was answered.",
      );
    // A budget's 80 % notice (an Inbox entry too) is only dismissed.
    if (c.req.param("id").startsWith("ntc_")) {
      if (b.data.dismiss !== true || b.data.choice !== undefined || b.data.answer !== undefined)
        throw new RelayError(
          "REMOTE_RELAY_INVALID_INPUT",
          "A budget notice takes no answer: dismiss it with { dismiss: true }. Nothing was changed.",
        );
      d.budgets.dismissNotice(c.req.param("id"));
      return c.json({ id: c.req.param("id"), kind: "notice", dismissed: true });
    }
    if (!d.questions.get(c.req.param("id")) && d.pairing.inbox.holds(c.req.param("id")))
      return c.json(await d.pairing.inbox.answer(c.req.param("id"), b.data));
    return c.json(questionView(d.answering.answer(c.req.param("id"), { ...b.data, via: d.identity.name })));
  });

  app.get("/stream", (c) =>
    streamSSE(c, async (stream) => {
      const queue: { event: string; data: string }[] = [];
      let wake: (() => void) | null = null;
      const off = d.bus.on((e) => {
        // A streamed chunk goes out as turn.delta (the page appends it). A client far behind
        // loses chunks; each carries its offset, so the page sees the gap and re-reads.
        // Secrets are masked on the way out (a masked chunk's length changes: the page re-reads).
        if (e.type === "turn.progress") {
          if (queue.length > 2000) return;
          queue.push({
            event: "turn.delta",
            data: d.secretMask.maskJson(
              JSON.stringify({ sessionId: e.sessionId, turnId: e.turnId, text: e.text ?? "", offset: e.offset ?? 0 }),
            ),
          });
        } else queue.push({ event: "change", data: d.secretMask.maskJson(JSON.stringify(e)) });
        wake?.();
      });
      stream.onAbort(() => {
        off();
        wake?.();
      });
      await stream.writeSSE({
        event: "hello",
        data: JSON.stringify({ name: d.identity.name, version: d.identity.version }),
      });
      while (!stream.aborted) {
        if (!queue.length)
          await new Promise<void>((r) => {
            wake = r;
            setTimeout(r, 15_000).unref();
          });
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
    const clock = d.testClock;
    if (!clock)
      return c.json(
        {
          ok: false,
          code: "REMOTE_RELAY_NOT_FOUND",
          error: "The relay runs on the real clock (start it with --test-clock).",
        },
        404,
      );
    const b = await jsonBody(c);
    if (typeof b.advanceMs === "number" && Number.isFinite(b.advanceMs) && b.advanceMs >= 0)
      await clock.advance(b.advanceMs);
    else if (typeof b.set === "string" && !Number.isNaN(Date.parse(b.set))) await clock.set(Date.parse(b.set));
    else
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        "Give { advanceMs: milliseconds ≥ 0 } or { set: ISO time }. The clock did not move.",
      );
    // Let work that the step released (promises, waiters) run before answering.
    await new Promise((r) => setImmediate(r));
    return c.json({ now: new Date(clock.now()).toISOString() });
  });

  return app;
}
