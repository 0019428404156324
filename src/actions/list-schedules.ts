import { defineAction } from "./define.ts";
import { scheduleView } from "../schedules/view.ts";
import { SCHEDULES_THIS_RELAY_ONLY } from "./own-or-other.ts";

export const listSchedules = defineAction({
  name: "list_schedules",
  since: "0.9.16",
  write: false,
  level: "read",
  relayOptional: true,
  thisRelayOnly: SCHEDULES_THIS_RELAY_ONLY,
  nothing: "Nothing was listed.",
  args: {},
  handler({ identity, clock, schedules, sessions, caller }) {
    const rows = schedules.store.listFor(caller.id, clock.now());
    const active = rows.filter((r) => r.ended_at == null).length;
    return {
      summary: `list_schedules → ${identity.name}: ${active} active, ${rows.length - active} ended within the past hour`,
      schedules: rows.map((r) => scheduleView({ sessions }, r)),
    };
  },
});
