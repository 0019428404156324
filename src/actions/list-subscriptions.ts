import { z } from "zod";
import type { ActionDef } from "./types.ts";
import { RelayError } from "../core/errors.ts";
import { subscriptionView } from "../watching/views.ts";
import { ENDED_LISTED_MS } from "../watching/types.ts";

// list_subscriptions (seed §9): this conversation's subscriptions, or with `watcher` another's
// (how an agent looks before taking over): active ones and those ended within the hour.
export const listSubscriptions: ActionDef = {
  name: "list_subscriptions",
  since: "0.9.10",
  write: false,
  level: "read",
  relayOptional: true,
  args: {
    watcher: z.string().min(1).describe("Another conversation's session id: lists its subscriptions instead of yours."),
  },
  handler(ctx, args) {
    const { relay, caller } = ctx;
    let watcher = caller.id;
    if (args.watcher) {
      const s = relay.sessions.get(String(args.watcher));
      if (!s) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No session "${String(args.watcher).slice(0, 80)}" on relay "${relay.name}" (list_sessions shows the sessions there). Nothing was listed.`);
      watcher = s.id;
    }
    const rows = relay.watch.subs.listFor(watcher, relay.clock.now() - ENDED_LISTED_MS);
    const subscriptions = rows.map((r) => subscriptionView(relay, relay.watch.subs, r));
    const active = subscriptions.filter((s) => s.active).length;
    const whose = watcher === caller.id ? "" : ` of session ${watcher}`;
    return { summary: `list_subscriptions → ${relay.name}${whose}: ${active} active, ${subscriptions.length - active} ended within the hour`, watcher, subscriptions };
  },
};
