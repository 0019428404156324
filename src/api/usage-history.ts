import { Hono } from "hono";
import { RelayError } from "../core/errors.ts";
import type { SessionReads } from "../sessions/reads.ts";

// GET /api/usage/history?days=30&session= : tokens and cost per day and provider, for the
// page's chart (Settings → Usage for the relay, the title bar's Usage for one session).

export interface UsageHistoryDeps {
  sessionReads: Pick<SessionReads, "usageByDay">;
  clock: { now(): number };
  sessions: { get(id: string): unknown };
}

const DAY = 24 * 60 * 60_000;

export function usageHistoryRoutes(d: UsageHistoryDeps): Hono {
  const app = new Hono();
  app.get("/history", (c) => {
    const raw = c.req.query("days") || "30";
    const days = Number(raw);
    if (!/^\d+$/.test(raw) || days < 1 || days > 366)
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `days must be a whole number from 1 to 366 (got ${JSON.stringify(raw).slice(0, 40)}). Nothing was read.`,
      );
    const session = c.req.query("session") || undefined;
    if (session && !d.sessions.get(session))
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No session "${session.slice(0, 80)}" on this relay. Nothing was read.`,
      );
    const now = d.clock.now();
    return c.json({
      days,
      ...(session ? { session } : {}),
      usage: d.sessionReads.usageByDay(now - days * DAY, session),
    });
  });
  return app;
}
