import { z } from "zod";
import type { ActionDef } from "./types.ts";
import { RelayError } from "../core/errors.ts";
import { questionView } from "../questions/ask-user.ts";

export const listQuestions: ActionDef = {
  name: "list_questions",
  since: "0.9.16",
  write: false,
  level: "read",
  relayOptional: true,
  noSettingNeeded: true,
  args: { session: z.string().min(1).describe("List the questions about this other session instead of your own conversation's.") },
  handler(ctx, args) {
    const { relay, caller } = ctx;
    const NOTHING = "Nothing was listed.";
    let about: string | undefined;
    if (args.session !== undefined && args.session !== caller.id) {
      // Reading another session's questions is using another session: it needs the setting.
      if (!relay.settings.get().agentSessions) {
        throw new RelayError("REMOTE_RELAY_DISABLED", `Listing another session's questions needs "Agents may start and use sessions on this relay", which the owner has not switched on on relay "${relay.name}". ${NOTHING}`);
      }
      const s = relay.sessions.get(String(args.session));
      if (!s) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No session "${String(args.session).slice(0, 80)}" on relay "${ctx.relayName}" (list_sessions shows the sessions there). ${NOTHING}`);
      about = s.id;
    }
    const rows = relay.asks.list(about ? { about } : { askedBy: caller.id });
    const pending = rows.filter((q) => q.status === "pending").length;
    return {
      summary: `list_questions → ${relay.name}${about ? ` session ${about}` : ""}: ${pending} pending, ${rows.length - pending} answered, dismissed or withdrawn within the past day`,
      questions: rows.map((q) => ({ ...questionView(q), askedBy: q.asked_by, ...(q.status === "dismissed" ? { dismissed: true } : {}) })),
    };
  },
};
