import { Hono } from "hono";
import { RelayError } from "../core/errors.ts";
import type { ApiDeps } from "./deps.ts";
import { checkSchedule, NOTHING_SCHEDULED, OWNER_SETTER } from "../schedules/new-schedule.ts";
import { scheduleView } from "../schedules/view.ts";
import { jsonBody, refuseUnknownFields } from "./http-errors.ts";

// POST /api/schedules (contract §10.5): the owner sets a schedule into a conversation, with
// the checks and words of relay_tool `schedule` (schedules/new-schedule.ts) and its limit of
// schedules firing into one conversation. GET and DELETE live in schedules.ts.

const KEYS = new Set(["session", "title", "text", "at", "every_minutes"]);

export function ownerScheduleRoutes(d: Pick<ApiDeps, "identity" | "clock" | "sessions" | "schedules">): Hono {
  const app = new Hono();
  app.post("/", async (c) => {
    const b = await jsonBody(c);
    refuseUnknownFields(b, KEYS, "a schedule takes session, title, text, at and every_minutes", NOTHING_SCHEDULED);
    if (typeof b.session !== "string" || !b.session)
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `schedule needs session: the id of the conversation to prompt when due. ${NOTHING_SCHEDULED}`,
      );
    const checked = checkSchedule(b, d.clock.now());
    const target = d.sessions.get(b.session);
    if (!target)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No session "${b.session.slice(0, 80)}" on relay "${d.identity.name}". ${NOTHING_SCHEDULED}`,
      );
    if (target.archived_at)
      throw new RelayError(
        "REMOTE_RELAY_ARCHIVED",
        `Session "${target.title}" (${target.id}) is archived. ${NOTHING_SCHEDULED}`,
      );
    d.schedules.checkLimits(target.id, OWNER_SETTER);
    const row = d.schedules.create({
      sessionId: target.id,
      setBy: OWNER_SETTER,
      title: checked.title,
      text: checked.text,
      at: checked.at,
      everyMinutes: checked.everyMinutes,
      origin: null,
    });
    return c.json(scheduleView(d, row), 201);
  });
  return app;
}
