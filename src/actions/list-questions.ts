import { z } from "zod";
import { defineAction } from "./define.ts";
import { RelayError } from "../core/errors.ts";
import { questionView } from "../questions/ask-user.ts";

const NOTHING = "Nothing was listed.";

export const listQuestions = defineAction({
  name: "list_questions",
  since: "0.9.16",
  write: false,
  level: "read",
  relayOptional: true,
  noSettingNeeded: true,
  nothing: NOTHING,
  args: {
    session: z
      .string()
      .min(1)
      .describe("List the questions about this other session instead of your own conversation's."),
  },
  handler({ identity, settings, sessions, asks, caller, relayName }, { session }) {
    let about: string | undefined;
    if (session !== undefined && session !== caller.id) {
      // Reading another session's questions is using another session: it needs the setting.
      if (!settings.get().agentSessions) {
        throw new RelayError(
          "REMOTE_RELAY_DISABLED",
          `Listing another session's questions needs "Agents may start and use sessions on this relay", which the owner has not switched on on relay "${identity.name}". ${NOTHING}`,
        );
      }
      const s = sessions.get(session);
      if (!s)
        throw new RelayError(
          "REMOTE_RELAY_NOT_FOUND",
          `No session "${session.slice(0, 80)}" on relay "${relayName}" (list_sessions shows the sessions there). ${NOTHING}`,
        );
      about = s.id;
    }
    const rows = asks.list(about ? { about } : { askedBy: caller.id });
    const pending = rows.filter((q) => q.status === "pending").length;
    return {
      summary: `list_questions → ${identity.name}${about ? ` session ${about}` : ""}: ${pending} pending, ${rows.length - pending} answered, dismissed or withdrawn within the past day`,
      questions: rows.map((q) => ({
        ...questionView(q),
        askedBy: q.asked_by,
        ...(q.status === "dismissed" ? { dismissed: true } : {}),
      })),
    };
  },
});
