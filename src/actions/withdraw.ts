import { z } from "zod";
import { defineAction } from "./define.ts";
import { questionView } from "../questions/ask-user.ts";

export const withdraw = defineAction({
  name: "withdraw",
  since: "0.9.16",
  write: false,
  level: "prompt",
  relayOptional: true,
  noSettingNeeded: true,
  nothing: "Nothing was withdrawn.",
  args: { question_id: z.string().min(1).describe("A pending question this conversation asked with ask.") },
  required: { question_id: "a pending question this conversation asked (see list_questions)" },
  handler({ asks, identity, caller }, { question_id }) {
    const q = asks.withdraw(caller.id, question_id);
    return {
      summary: `withdraw → ${identity.name}: question ${q.id} withdrawn`,
      question_id: q.id,
      status: q.status,
      question: questionView(q),
    };
  },
});
