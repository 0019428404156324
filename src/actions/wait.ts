import { z } from "zod";
import type { ActionDef } from "./types.ts";
import { RelayError } from "../core/errors.ts";
import { targetSession } from "./target.ts";
import { messageIdArg, waitSecondsArg } from "./args.ts";
import { statusSummary, waitForTurn } from "./waiting.ts";
import { mergeAnswer } from "./merge.ts";

export const wait: ActionDef = {
  name: "wait",
  since: "0.9.4",
  write: false,
  level: "read",
  args: {
    session: z.string().min(1).describe("Session id you sent to."),
    message_id: messageIdArg,
    merge_id: z.string().min(1).describe("merge_id from a merge whose outcome to wait for (instead of session)."),
    wait_seconds: waitSecondsArg,
  },
  async handler(ctx, args) {
    if (typeof args.merge_id === "string") return mergeAnswer(ctx, args.merge_id, args.wait_seconds as number | undefined);
    const s = targetSession(ctx, "wait", args.session, { notSelf: true });
    let turn = args.message_id ? ctx.relay.sessions.turnByMessage(String(args.message_id)) : undefined;
    if (args.message_id && (!turn || turn.session_id !== s.id)) {
      throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No prompt ${String(args.message_id).slice(0, 80)} in session ${s.id}. Nothing was waited for.`);
    }
    if (!turn) {
      // Without message_id: the session's current turn, else its latest one.
      turn = ctx.relay.sessions.activeTurns(s.id)[0]
        ?? (ctx.relay.db.prepare("SELECT * FROM turns WHERE session_id = ? ORDER BY queued_at DESC, rowid DESC LIMIT 1").get(s.id) as typeof turn);
      if (!turn) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `Session ${s.id} has had no turn to wait for. Nothing was waited for.`);
    }
    // No echo (seed §9): a reply the watcher gets from wait does not wake it again.
    ctx.relay.watchingHooks?.promptSent(ctx.caller.id, turn.id);
    const r = await waitForTurn(ctx, turn, args.wait_seconds as number | undefined);
    ctx.relay.watchingHooks?.replyReceived(ctx.caller.id, turn.id, r.status as string);
    return { summary: statusSummary("wait", ctx.relay.name, s.id, r), ...r };
  },
};
