import type { ActionDef } from "./types.ts";
import { scheduleView } from "../schedules/view.ts";
import { SCHEDULES_THIS_RELAY_ONLY } from "./own-or-other.ts";

export const listSchedules: ActionDef = {
  name: "list_schedules",
  since: "0.9.16",
  write: false,
  level: "read",
  relayOptional: true,
  thisRelayOnly: SCHEDULES_THIS_RELAY_ONLY,
  args: {},
  handler(ctx) {
    const { relay, caller } = ctx;
    const rows = relay.schedules.store.listFor(caller.id, relay.clock.now());
    const active = rows.filter((r) => r.ended_at == null).length;
    return {
      summary: `list_schedules → ${relay.name}: ${active} active, ${rows.length - active} ended within the past hour`,
      schedules: rows.map((r) => scheduleView(relay, r)),
    };
  },
};
