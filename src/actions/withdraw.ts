import { z } from "zod";
import type { ActionDef } from "./types.ts";
import { RelayError } from "../core/errors.ts";
import { questionView } from "../questions/ask-user.ts";

export const withdraw: ActionDef = {
  name: "withdraw",
  since: "0.9.16",
  write: false,
  level: "prompt",
  relayOptional: true,
  noSettingNeeded: true,
  args: { question_id: z.string().min(1).describe("A pending question this conversation asked with ask.") },
  handler(ctx, args) {
    if (typeof args.question_id !== "string") throw new RelayError("REMOTE_RELAY_INVALID_INPUT", "withdraw needs question_id: a pending question this conversation asked (see list_questions). Nothing was withdrawn.");
    const q = ctx.relay.asks.withdraw(ctx.caller.id, args.question_id);
    return { summary: `withdraw → ${ctx.relay.name}: question ${q.id} withdrawn`, question_id: q.id, status: q.status, question: questionView(q) };
  },
};
