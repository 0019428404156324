import { z } from "zod";
import { defineAction } from "./define.ts";
import { RelayError } from "../core/errors.ts";
import { MAX_SUBSCRIPTIONS } from "../watching/types.ts";

const NOTHING = "Nothing was transferred.";

// transfer_subscriptions (seed §9): every subscription of another conversation moves to this
// one, e.g. when a new session replaces an old watcher. Always asks the owner on a card.
export const transferSubscriptions = defineAction({
  name: "transfer_subscriptions",
  since: "0.9.10",
  write: true,
  level: "full",
  relayOptional: true,
  nothing: NOTHING,
  args: {
    from: z.string().min(1).describe("The session whose subscriptions move to this conversation."),
  },
  required: { from: "the session whose subscriptions move here" },
  async handler({ identity, sessions, watching, caller, remote, approve }, { from: id }) {
    const name = identity.name;
    const from = sessions.get(id);
    if (!from)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No session "${id.slice(0, 80)}" on relay "${name}" (list_sessions shows the sessions there). ${NOTHING}`,
      );
    if (from.id === caller.id)
      throw new RelayError(
        "REMOTE_RELAY_FORBIDDEN",
        `transfer_subscriptions moves another conversation's subscriptions to this one; from names this conversation. ${NOTHING}`,
      );
    const check = () => {
      const theirs = watching.ofWatcher(from.id).length;
      const mine = watching.held(caller.id) + (remote?.heldElsewhere ?? 0);
      if (!theirs)
        throw new RelayError(
          "REMOTE_RELAY_NOT_FOUND",
          `Session "${from.title}" (${from.id}) holds no active subscriptions on relay "${name}". ${NOTHING}`,
        );
      if (theirs + mine > MAX_SUBSCRIPTIONS) {
        throw new RelayError(
          "REMOTE_RELAY_SUBSCRIPTION_LIMIT",
          `This conversation holds ${mine} subscriptions and session "${from.title}" holds ${theirs}: together more than ${MAX_SUBSCRIPTIONS}. End some with unsubscribe first. ${NOTHING}`,
        );
      }
      return theirs;
    };
    const n = check();
    await approve({
      always: "transfer_subscriptions always asks",
      nothing: NOTHING,
      target: { id: from.id, title: from.title },
      details: [`Moves ${n} subscription${n === 1 ? "" : "s"} of "${from.title}" (${from.id}) to this conversation`],
    });
    check();
    const moved = watching.transfer(from.id, caller.id);
    return {
      summary: `transfer_subscriptions → ${name}: ${moved.length} subscription${moved.length === 1 ? "" : "s"} moved from ${from.id}`,
      from: from.id,
      subscriptions: moved.map((r) => watching.view(r)),
    };
  },
});
