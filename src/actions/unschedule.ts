import { z } from "zod";
import type { ActionDef } from "./types.ts";
import { RelayError } from "../core/errors.ts";
import { scheduleView } from "../schedules/view.ts";
import { SCHEDULES_THIS_RELAY_ONLY } from "./own-or-other.ts";

const NOTHING = "Nothing was unscheduled.";

export const unschedule: ActionDef = {
  name: "unschedule",
  since: "0.9.16",
  write: false,
  level: "prompt",
  relayOptional: true,
  thisRelayOnly: SCHEDULES_THIS_RELAY_ONLY,
  args: { schedule_id: z.string().min(1).describe("The schedule to end (schedule_id from schedule, or an id from list_schedules).") },
  handler(ctx, args) {
    const { relay, caller } = ctx;
    if (typeof args.schedule_id !== "string") throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `unschedule needs schedule_id (see list_schedules). ${NOTHING}`);
    const row = relay.schedules.store.get(args.schedule_id);
    // Only the conversation's own schedules: those firing into it and those it set.
    if (!row || (row.session_id !== caller.id && row.set_by !== caller.id)) {
      throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No schedule "${args.schedule_id.slice(0, 80)}" fires into this conversation or was set by it (list_schedules shows them). ${NOTHING}`);
    }
    if (row.ended_at != null) {
      return { summary: `unschedule → ${relay.name}: ${row.id} had already ended (${row.end_reason})`, schedule_id: row.id, ended: true, schedule: scheduleView(relay, row) };
    }
    relay.schedules.end(row.id, "unscheduled");
    return { summary: `unschedule → ${relay.name}: ${row.id} "${row.title}" ended`, schedule_id: row.id, ended: true, schedule: scheduleView(relay, relay.schedules.store.get(row.id)!) };
  },
};
