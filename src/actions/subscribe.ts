import { defineAction } from "./define.ts";
import { NOTHING, SESSIONS_ARE, subscribeArgs } from "../watching/subscribe-args.ts";
import { checkSubscription } from "../watching/options.ts";

// subscribe (seed §9): be woken when something happens in other sessions, instead of polling.
export const subscribe = defineAction({
  name: "subscribe",
  since: "0.9.10",
  write: true,
  level: "read",
  relayOptional: true,
  nothing: NOTHING,
  args: subscribeArgs,
  required: { sessions: SESSIONS_ARE },
  async handler({ identity, sessions, watching, caller, remote, approve }, args) {
    const checked = checkSubscription({ name: identity.name, version: identity.version, sessions }, caller, args);
    // Subscriptions on paired relays count too: mirrors here, and what the calling relay holds.
    const elsewhere = remote?.heldElsewhere ?? 0;
    watching.checkLimit(caller.id, elsewhere);
    const one = checked.sessions.length === 1 ? checked.sessions[0] : null;
    await approve({
      once: "subscribe",
      target: one ? { id: one.id, title: one.title } : null,
      details: checked.details,
    });
    // The card may have taken a while: the limit is checked again where it is written.
    const row = watching.subscribe(checked.sub, elsewhere);
    const { sub } = checked;
    const what = sub.all
      ? `all sessions${sub.exclude.length ? ` except ${sub.exclude.length}` : ""}`
      : `${checked.sessions.length} session${checked.sessions.length === 1 ? "" : "s"}`;
    return { summary: `subscribe → ${identity.name}: ${what} (${row.id})`, subscription: watching.view(row) };
  },
});
