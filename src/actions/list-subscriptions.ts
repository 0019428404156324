import { z } from "zod";
import { defineAction } from "./define.ts";
import { RelayError } from "../core/errors.ts";
import { ENDED_LISTED_MS } from "../watching/types.ts";

// list_subscriptions (seed §9): this conversation's subscriptions, or with `watcher` another's
// (how an agent looks before taking over): active ones and those ended within the hour.
export const listSubscriptions = defineAction({
  name: "list_subscriptions",
  since: "0.9.10",
  write: false,
  level: "read",
  relayOptional: true,
  nothing: "Nothing was listed.",
  args: {
    watcher: z.string().min(1).describe("Another conversation's session id: lists its subscriptions instead of yours."),
  },
  handler({ identity, sessions, watching, clock, caller }, args) {
    let watcher = caller.id;
    if (args.watcher) {
      const s = sessions.get(args.watcher);
      if (!s)
        throw new RelayError(
          "REMOTE_RELAY_NOT_FOUND",
          `No session "${args.watcher.slice(0, 80)}" on relay "${identity.name}" (list_sessions shows the sessions there). Nothing was listed.`,
        );
      watcher = s.id;
    }
    const subscriptions = watching.listFor(watcher, clock.now() - ENDED_LISTED_MS).map((r) => watching.view(r));
    const active = subscriptions.filter((s) => s.active).length;
    const whose = watcher === caller.id ? "" : ` of session ${watcher}`;
    return {
      summary: `list_subscriptions → ${identity.name}${whose}: ${active} active, ${subscriptions.length - active} ended within the hour`,
      watcher,
      subscriptions,
    };
  },
});
