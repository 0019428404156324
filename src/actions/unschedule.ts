import { z } from "zod";
import { defineAction } from "./define.ts";
import { RelayError } from "../core/errors.ts";
import { scheduleView } from "../schedules/view.ts";
import { SCHEDULES_THIS_RELAY_ONLY } from "./own-or-other.ts";

const NOTHING = "Nothing was unscheduled.";

export const unschedule = defineAction({
  name: "unschedule",
  since: "0.9.16",
  write: false,
  level: "prompt",
  relayOptional: true,
  thisRelayOnly: SCHEDULES_THIS_RELAY_ONLY,
  nothing: NOTHING,
  args: {
    schedule_id: z
      .string()
      .min(1)
      .describe("The schedule to end (schedule_id from schedule, or an id from list_schedules)."),
  },
  required: { schedule_id: "(see list_schedules)" },
  handler({ identity, schedules, sessions, caller }, { schedule_id }) {
    const row = schedules.store.get(schedule_id);
    // Only the conversation's own schedules: those firing into it and those it set.
    if (!row || (row.session_id !== caller.id && row.set_by !== caller.id)) {
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No schedule "${schedule_id.slice(0, 80)}" fires into this conversation or was set by it (list_schedules shows them). ${NOTHING}`,
      );
    }
    if (row.ended_at != null) {
      return {
        summary: `unschedule → ${identity.name}: ${row.id} had already ended (${row.end_reason})`,
        schedule_id: row.id,
        ended: true,
        schedule: scheduleView({ sessions }, row),
      };
    }
    schedules.end(row.id, "unscheduled");
    return {
      summary: `unschedule → ${identity.name}: ${row.id} "${row.title}" ended`,
      schedule_id: row.id,
      ended: true,
      schedule: scheduleView({ sessions }, schedules.store.get(row.id)!),
    };
  },
});
