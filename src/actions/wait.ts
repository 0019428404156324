import { z } from "zod";
import { defineAction } from "./define.ts";
import { RelayError } from "../core/errors.ts";
import { targetSession } from "./target.ts";
import { messageIdArg, waitSecondsArg } from "./args.ts";
import { statusSummary, waitForTurn } from "./waiting.ts";
import { mergeAnswer } from "./merge.ts";

export const wait = defineAction({
  name: "wait",
  since: "0.9.4",
  write: false,
  level: "read",
  nothing: "Nothing was waited for.",
  args: {
    session: z.string().min(1).describe("Session id you sent to."),
    message_id: messageIdArg,
    merge_id: z.string().min(1).describe("merge_id from a merge whose outcome to wait for (instead of session)."),
    wait_seconds: waitSecondsArg,
  },
  async handler(ctx, { session, message_id, merge_id, wait_seconds }) {
    if (merge_id) return mergeAnswer(ctx, merge_id, wait_seconds);
    const { identity, sessions, sessionReads, watching, caller } = ctx;
    const s = targetSession(ctx, "wait", session, { notSelf: true });
    let turn = message_id ? sessions.turnByMessage(message_id) : undefined;
    if (message_id && (!turn || turn.session_id !== s.id)) {
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No prompt ${message_id.slice(0, 80)} in session ${s.id}. Nothing was waited for.`,
      );
    }
    if (!turn) {
      // Without message_id: the session's current turn, else its latest one.
      turn = sessions.activeTurns(s.id)[0] ?? sessionReads.latestTurn(s.id);
      if (!turn)
        throw new RelayError(
          "REMOTE_RELAY_NOT_FOUND",
          `Session ${s.id} has had no turn to wait for. Nothing was waited for.`,
        );
    }
    // No echo (seed §9): a reply the watcher gets from wait does not wake it again.
    watching.noEcho.promptSent(caller.id, turn.id);
    const r = await waitForTurn(ctx, turn, wait_seconds);
    watching.noEcho.replyReceived(caller.id, turn.id, r.status);
    return { summary: statusSummary("wait", identity.name, s.id, r), ...r };
  },
});
