import { z } from "zod";
import type { ActionDef } from "./types.ts";
import { checkSubscribe, NOTHING } from "../watching/options.ts";
import { EVENT_TYPES } from "../watching/types.ts";
import { addSubscription, checkSubscriptionLimit } from "../watching/add-subscription.ts";
import { subscriptionView } from "../watching/views.ts";

// subscribe (seed §9): be woken when something happens in other sessions, instead of polling.
const minutesArg = (what: string) => z.any().meta({ type: "integer", minimum: 1 }).describe(what);

export const subscribe: ActionDef = {
  name: "subscribe",
  since: "0.9.10",
  write: true,
  level: "read",
  relayOptional: true,
  args: {
    sessions: z.any().meta({ type: "array", items: { type: "string" } }).describe('Session ids to watch, or ["all"] for every session on the relay (your own conversation is never watched).'),
    events: z.any().meta({ type: "array", items: { type: "string", enum: [...EVENT_TYPES] } }).describe("Events to be woken by. Left out: question_asked, error, turn_end, subagent_finished, task_failed, stalled, all_idle, overlap."),
    once: z.boolean().describe("End the subscription after its first event."),
    match: z.any().meta({ type: "string" }).describe("Only events whose line contains this text (case-insensitive)."),
    stalled_minutes: minutesArg("stalled: a working session with no progress for this many minutes (default 15)."),
    stalledMinutes: minutesArg("Same as stalled_minutes."),
    heartbeat_minutes: minutesArg("A heartbeat event every this many minutes listing the watched sessions that work (none inside quiet hours)."),
    heartbeatMinutes: minutesArg("Same as heartbeat_minutes."),
    digest_minutes: minutesArg("Gather this subscription's events into one message every N minutes (questions and errors still come at once)."),
    quiet_hours: z.any().meta({ type: "object", properties: { from: { type: "string" }, to: { type: "string" }, tz: { type: "string" } } })
      .describe('{ "from": "23:00", "to": "06:00", "tz": "Europe/Berlin" }: what happens inside waits and comes as one message when the window ends (questions and errors still come at once).'),
    exclude: z.any().meta({ type: "array", items: { type: "string" } }).describe('With sessions ["all"] only: sessions to leave out.'),
  },
  async handler(ctx, args) {
    const { relay, caller } = ctx;
    const checked = checkSubscribe(relay, caller, args);
    // Subscriptions on paired relays count too: mirrors here, and what the calling relay holds.
    const elsewhere = ctx.remote?.heldElsewhere ?? 0;
    checkSubscriptionLimit(relay, caller.id, elsewhere);
    const one = checked.sessions.length === 1 ? checked.sessions[0] : null;
    await relay.approvals.require(caller, {
      action: "subscribe", relay: relay.name, write: true, once: "subscribe", nothing: NOTHING,
      target: one ? { id: one.id, title: one.title } : null, details: checked.details,
    }, ctx.signal);
    // The card may have taken a while: the limit is checked again where it is written.
    const row = addSubscription(relay, checked.sub, elsewhere);
    const view = subscriptionView(relay, relay.watch.subs, row);
    const what = checked.sub.all
      ? `all sessions${checked.sub.exclude.length ? ` except ${checked.sub.exclude.length}` : ""}`
      : `${checked.sessions.length} session${checked.sessions.length === 1 ? "" : "s"}`;
    return { summary: `subscribe → ${relay.name}: ${what} (${row.id})`, subscription: view };
  },
};
