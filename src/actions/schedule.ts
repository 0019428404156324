import { z } from "zod";
import type { ActionDef } from "./types.ts";
import { RelayError } from "../core/errors.ts";
import { iso } from "../core/clock.ts";
import { textArg } from "./args.ts";
import { cadence } from "../schedules/view.ts";
import { callerOrigin, ownOrOtherSession, SCHEDULES_THIS_RELAY_ONLY } from "./own-or-other.ts";

const NOTHING = "Nothing was scheduled.";
const MAX_EVERY = 366 * 24 * 60;

export const schedule: ActionDef = {
  name: "schedule",
  since: "0.9.16",
  write: true,
  level: "prompt",
  relayOptional: true,
  thisRelayOnly: SCHEDULES_THIS_RELAY_ONLY,
  args: {
    text: textArg,
    title: z.string().min(1).max(200).describe("A short name for the schedule, shown in lists and in the message header."),
    at: z.string().min(1).describe("When to fire (first), as an ISO time such as 2026-11-02T02:00:00Z."),
    every_minutes: z.number().int().min(1).max(MAX_EVERY).describe("Repeat every this many minutes (whole minutes). With at: first at `at`, then every interval after it."),
    session: z.string().min(1).describe("Session id to prompt when due (left out: your own conversation)."),
  },
  async handler(ctx, args) {
    const { relay, caller } = ctx;
    if (typeof args.text !== "string") throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `schedule needs text: the prompt to queue when due. ${NOTHING}`);
    if (args.at === undefined && args.every_minutes === undefined) {
      throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `schedule needs at (an ISO time) or every_minutes, or both. ${NOTHING}`);
    }
    const everyMinutes = (args.every_minutes as number | undefined) ?? null;
    let at: number | null = null;
    if (args.at !== undefined) {
      at = Date.parse(String(args.at));
      if (Number.isNaN(at)) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `at must be an ISO time such as 2026-11-02T02:00:00Z (got ${JSON.stringify(args.at).slice(0, 60)}). ${NOTHING}`);
      if (!everyMinutes && at <= relay.clock.now()) {
        throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `at ${iso(at)} has already passed (now ${iso(relay.clock.now())}). ${NOTHING}`);
      }
    }
    const target = ownOrOtherSession(ctx, args.session, NOTHING);
    const other = target.id !== caller.id;
    // Limits are checked before any card; create() checks them again in its transaction.
    relay.schedules.checkLimits(target.id, caller.id);
    const title = typeof args.title === "string" ? args.title : defaultTitle(args.text);
    const when = everyMinutes ? `${cadence({ every_minutes: everyMinutes })}${at ? ` from ${iso(at)}` : ""}` : `once at ${iso(at)}`;
    // Into another session it is limited like send: cards in ask/plan, and loop protection counts it now.
    await ctx.approve({ prompts: other ? 1 : 0, target: other ? { id: target.id, title: target.title } : null, details: [`"${title}"`, when], nothing: NOTHING });
    const row = relay.schedules.create({ sessionId: target.id, setBy: caller.id, title, text: args.text, at, everyMinutes, origin: callerOrigin(ctx) });
    const next = iso(row.next_fire_at);
    const head = other ? `schedule → ${relay.name} session ${target.id}` : `schedule → ${relay.name}`;
    return {
      summary: `${head}: ${everyMinutes ? `every ${everyMinutes} min, next ${next}` : `once at ${next}`} (${row.id})`,
      schedule_id: row.id,
      schedule: {
        id: row.id, title: row.title, everyMinutes, once: !everyMinutes, nextFireAt: next,
        ...(other ? { session: { id: target.id, title: target.title } } : {}),
      },
    };
  },
};

function defaultTitle(text: string): string {
  const line = text.split("\n").find((l) => l.trim())?.trim() ?? "Scheduled prompt";
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
