import { z } from "zod";
import { defineAction } from "./define.ts";
import { RelayError } from "../core/errors.ts";
import { ownOrOtherSession } from "./own-or-other.ts";

const NOTHING = "Nothing was asked.";

/** ask (seed §11): a non-blocking question for the owner. Returns at once; the answer comes
 * later as the relay event question_answered. About the agent's own conversation it needs
 * no setting; with `session` (on behalf of another session) it needs agent sessions on and
 * is a write (card in ask/plan), not counted by loop protection. */
export const ask = defineAction({
  name: "ask",
  since: "0.9.16",
  write: false,
  level: "prompt",
  relayOptional: true,
  noSettingNeeded: true,
  nothing: NOTHING,
  args: {
    question: z
      .string()
      .min(1)
      .max(10_000)
      .describe(
        "The question for the user. You get the answer later as the relay event question_answered; go on with work that does not depend on it and do not ask the same thing again while it is pending.",
      ),
    options: z
      .array(z.string().min(1).max(500))
      .max(20)
      .describe("Choices the user can pick from (optional; the user may also answer in free text)."),
    recommendation: z
      .string()
      .min(1)
      .max(2_000)
      .describe("The option or answer you recommend, and why in a few words."),
    detail: z.string().min(1).max(20_000).describe("Background the user needs to decide."),
    session: z
      .string()
      .min(1)
      .describe(
        "Ask on behalf of this other session (its card shows there; both get the answer). Left out: your own conversation.",
      ),
  },
  required: { question: "what the user should answer" },
  async handler(ctx, { question, options, recommendation, detail, session }) {
    const { identity, settings, asks, caller, approve } = ctx;
    const other = session !== undefined && session !== caller.id;
    if (other && !settings.get().agentSessions) {
      throw new RelayError(
        "REMOTE_RELAY_DISABLED",
        `Asking on behalf of another session needs "Agents may start and use sessions on this relay", which the owner has not switched on on relay "${identity.name}". ${NOTHING}`,
      );
    }
    const target = ownOrOtherSession(ctx, session, NOTHING);
    asks.checkLimits(caller.id, target.id);
    if (other) {
      await approve({
        write: true,
        prompts: 0,
        target: { id: target.id, title: target.title },
        details: [`Question: ${question.slice(0, 300)}`],
        nothing: NOTHING,
      });
    }
    const q = asks.create({
      askedBy: caller.id,
      sessionId: target.id,
      question,
      options: options ?? [],
      recommendation: recommendation ?? null,
      detail: detail ?? null,
    });
    return {
      summary: `ask → ${identity.name}${other ? ` session ${target.id}` : ""}: question ${q.id} pending`,
      question_id: q.id,
      status: "pending",
      ...(other ? { session: { id: target.id, title: target.title } } : {}),
    };
  },
});
