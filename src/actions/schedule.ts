import { z } from "zod";
import { defineAction } from "./define.ts";
import { iso } from "../core/clock.ts";
import { textArg } from "./args.ts";
import { checkSchedule, MAX_EVERY_MINUTES, NOTHING_SCHEDULED as NOTHING } from "../schedules/new-schedule.ts";
import { callerOrigin, ownOrOtherSession, SCHEDULES_THIS_RELAY_ONLY } from "./own-or-other.ts";

export const schedule = defineAction({
  name: "schedule",
  since: "0.9.16",
  write: true,
  level: "prompt",
  relayOptional: true,
  thisRelayOnly: SCHEDULES_THIS_RELAY_ONLY,
  nothing: NOTHING,
  args: {
    text: textArg,
    title: z
      .string()
      .min(1)
      .max(200)
      .describe("A short name for the schedule, shown in lists and in the message header."),
    at: z.string().min(1).describe("When to fire (first), as an ISO time such as 2026-11-02T02:00:00Z."),
    every_minutes: z
      .number()
      .int()
      .min(1)
      .max(MAX_EVERY_MINUTES)
      .describe(
        "Repeat every this many minutes (whole minutes). With at: first at `at`, then every interval after it.",
      ),
    session: z.string().min(1).describe("Session id to prompt when due (left out: your own conversation)."),
  },
  // checkSchedule checks what the owner's schedules (POST /api/schedules) are checked for too.
  async handler(ctx, args) {
    const { identity, clock, schedules, caller, approve } = ctx;
    const { text, title, at, everyMinutes, when } = checkSchedule(args, clock.now());
    const target = ownOrOtherSession(ctx, args.session, NOTHING);
    const other = target.id !== caller.id;
    // Limits are checked before any card; create() checks them again in its transaction.
    schedules.checkLimits(target.id, caller.id);
    // Into another session it is limited like send: cards in ask/plan, and loop protection counts it now.
    await approve({
      prompts: other ? 1 : 0,
      target: other ? { id: target.id, title: target.title } : null,
      details: [`"${title}"`, when],
      detail: text,
      nothing: NOTHING,
    });
    const row = schedules.create({
      sessionId: target.id,
      setBy: caller.id,
      title,
      text,
      at,
      everyMinutes,
      origin: callerOrigin(ctx),
    });
    const next = iso(row.next_fire_at);
    const head = other ? `schedule → ${identity.name} session ${target.id}` : `schedule → ${identity.name}`;
    return {
      summary: `${head}: ${everyMinutes ? `every ${everyMinutes} min, next ${next}` : `once at ${next}`} (${row.id})`,
      schedule_id: row.id,
      schedule: {
        id: row.id,
        title: row.title,
        everyMinutes,
        once: !everyMinutes,
        nextFireAt: next,
        ...(other ? { session: { id: target.id, title: target.title } } : {}),
      },
    };
  },
});
