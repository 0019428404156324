import { z } from "zod";
import { defineAction } from "./define.ts";
import { RelayError } from "../core/errors.ts";

// unsubscribe (seed §9): ends one subscription of this conversation, or with "all" every one.
export const unsubscribe = defineAction({
  name: "unsubscribe",
  since: "0.9.10",
  write: false,
  level: "read",
  relayOptional: true,
  nothing: "Nothing was changed.",
  args: {
    subscription_id: z
      .string()
      .min(1)
      .describe(
        'The subscription to end (sub_…), or "all" for every subscription this conversation holds on the relay.',
      ),
  },
  required: { subscription_id: 'a subscription id from list_subscriptions, or "all"' },
  handler({ identity, watching, caller }, { subscription_id: id }) {
    const name = identity.name;
    if (id === "all") {
      const ended = watching.end(
        watching.ofWatcher(caller.id).map((s) => s.id),
        "unsubscribed",
      );
      return {
        summary: `unsubscribe → ${name}: ${ended.length} subscription${ended.length === 1 ? "" : "s"} ended`,
        ended,
        subscriptions: ended.map((s) => watching.view(watching.get(s)!)),
      };
    }
    const row = watching.get(id);
    if (!row || row.watcher !== caller.id) {
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `This conversation holds no subscription "${id.slice(0, 60)}" on relay "${name}" (list_subscriptions shows them). Nothing was changed.`,
      );
    }
    if (row.ended_at != null) {
      return {
        summary: `unsubscribe → ${name}: ${id} had already ended (${row.end_reason})`,
        ended: [],
        subscription: watching.view(row),
      };
    }
    watching.end([id], "unsubscribed");
    return {
      summary: `unsubscribe → ${name}: ${id} ended`,
      ended: [id],
      subscription: watching.view(watching.get(id)!),
    };
  },
});
