import { z } from "zod";
import { defineAction } from "./define.ts";
import { RelayError } from "../core/errors.ts";
import { fromJson } from "../store/db.ts";

const NOTHING = "Nothing was answered.";

/** answer_question (seed §8.3): answers a question card (`ask_user`) waiting in another
 * session, which lets that session's blocked turn go on. Never the agent's own questions,
 * never the relay's approval cards, never an `ask` (contract §6: REMOTE_RELAY_FORBIDDEN),
 * and those refusals come first, before anything else is looked at or anyone is asked. */
export const answerQuestion = defineAction({
  name: "answer_question",
  since: "0.9.4",
  write: true,
  level: "full",
  nothing: NOTHING,
  args: {
    question_id: z
      .string()
      .min(1)
      .describe(
        "Id of a question card waiting in another session (pendingQuestions of read_session, or a send/wait result with status waiting_question). Ask the user before answering for them, unless they let you decide on your own.",
      ),
    choices: z
      .array(z.string().min(1))
      .describe('The option picked, as a list with one entry, e.g. ["Merge"]. One of choices and answer is required.'),
    answer: z
      .string()
      .min(1)
      .max(100_000)
      .describe("A free-text answer, when no option fits. One of choices and answer is required."),
  },
  required: { question_id: "the id of a question card in another session" },
  async handler(
    { identity, sessions, questions, answering, approvals, caller, relayName, approve },
    { question_id: id, choices = [], answer },
  ) {
    if (id.startsWith("card_") || approvals.get(id)) {
      throw new RelayError(
        "REMOTE_RELAY_FORBIDDEN",
        `${id.slice(0, 80)} is an approval card of the relay: only the owner decides those. ${NOTHING}`,
      );
    }
    const q = questions.get(id);
    if (!q)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No question "${id.slice(0, 80)}" on relay "${relayName}". ${NOTHING}`,
      );
    if (q.kind === "ask") {
      throw new RelayError(
        "REMOTE_RELAY_FORBIDDEN",
        `Question ${q.id} was asked with ask: it is for the owner to answer, not for agents. ${NOTHING}`,
      );
    }
    if (q.session_id === caller.id) {
      throw new RelayError(
        "REMOTE_RELAY_FORBIDDEN",
        `Question ${q.id} is this conversation's own question: an agent cannot answer its own questions; the owner does. ${NOTHING}`,
      );
    }
    if (q.status !== "pending")
      throw new RelayError("REMOTE_RELAY_NOT_FOUND", `Question ${q.id} is no longer waiting (${q.status}). ${NOTHING}`);

    // Everything about the answer is checked before any card.
    if (!choices.length && answer === undefined)
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `answer_question needs choices (the option picked) or answer (free text). ${NOTHING}`,
      );
    if (choices.length > 1)
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `Question ${q.id} takes one choice; got ${choices.length}. ${NOTHING}`,
      );
    const options = fromJson<string[]>(q.options_json, []);
    const choice = choices[0];
    if (choice !== undefined && options.length && !options.includes(choice)) {
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `"${choice.slice(0, 100)}" is not one of the options of question ${q.id}: ${options.join(", ")}. ${NOTHING}`,
      );
    }
    const target = sessions.get(q.session_id);
    await approve({
      target: { id: q.session_id, title: target?.title ?? q.session_id },
      details: [
        `Question: ${q.question}`,
        choice !== undefined ? `Choice: ${choice}` : `Answer: ${answer?.slice(0, 200)}`,
      ],
    });
    answering.answer(q.id, {
      ...(choice !== undefined ? { choice } : {}),
      ...(answer !== undefined ? { answer } : {}),
      via: `agent:${caller.id}`,
    });
    return {
      summary: `answer_question → ${identity.name} session ${q.session_id}: answered ${q.id}`,
      question_id: q.id,
      session: q.session_id,
      answered: true,
      ...(choice !== undefined ? { choice } : {}),
      ...(answer !== undefined ? { answer } : {}),
    };
  },
});
