import { z } from "zod";
import type { ActionDef } from "./types.ts";
import { RelayError } from "../core/errors.ts";
import { subscriptionView } from "../watching/views.ts";

// unsubscribe (seed §9): ends one subscription of this conversation, or with "all" every one.
export const unsubscribe: ActionDef = {
  name: "unsubscribe",
  since: "0.9.10",
  write: false,
  level: "read",
  relayOptional: true,
  args: {
    subscription_id: z.string().min(1).describe('The subscription to end (sub_…), or "all" for every subscription this conversation holds on the relay.'),
  },
  handler(ctx, args) {
    const { relay, caller } = ctx;
    const id = args.subscription_id as string | undefined;
    if (!id) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", 'unsubscribe needs subscription_id: a subscription id from list_subscriptions, or "all". Nothing was changed.');
    const watch = relay.watch;
    if (id === "all") {
      const ended = watch.end(watch.subs.ofWatcher(caller.id).map((s) => s.id), "unsubscribed");
      return {
        summary: `unsubscribe → ${relay.name}: ${ended.length} subscription${ended.length === 1 ? "" : "s"} ended`,
        ended,
        subscriptions: ended.map((s) => subscriptionView(relay, watch.subs, watch.subs.get(s)!)),
      };
    }
    const row = watch.subs.get(id);
    if (!row || row.watcher !== caller.id) {
      throw new RelayError("REMOTE_RELAY_NOT_FOUND", `This conversation holds no subscription "${id.slice(0, 60)}" on relay "${relay.name}" (list_subscriptions shows them). Nothing was changed.`);
    }
    if (row.ended_at != null) {
      return { summary: `unsubscribe → ${relay.name}: ${id} had already ended (${row.end_reason})`, ended: [], subscription: subscriptionView(relay, watch.subs, row) };
    }
    watch.end([id], "unsubscribed");
    return { summary: `unsubscribe → ${relay.name}: ${id} ended`, ended: [id], subscription: subscriptionView(relay, watch.subs, watch.subs.get(id)!) };
  },
};
