import type { Answer, Questions, QuestionRow } from "./ask-user.ts";
import { answerEventText, type AnswerEventDeps } from "./answer-event.ts";

// Answering a question (the owner's card, answer_question, a paired relay's inbox): the
// answer row and, for an `ask`, its `question_answered` event to the asker and the session
// asked about commit in one transaction, so each gets it exactly once.

export interface AnsweringDeps extends AnswerEventDeps {
  questions: Pick<Questions, "answer">;
  sessions: { get(id: string): { title: string; archived_at: number | null } | undefined };
  /** The watching domain's urgent delivery (watching/delivery.ts), without a subscription. */
  delivery: {
    deliverUrgent(watcher: string, e: { type: string; text: string; key?: string; sessionId?: string | null }): void;
  };
}

export interface Answering {
  answer(id: string, a: Answer): QuestionRow;
}

export function makeAnswering(d: AnsweringDeps): Answering {
  const deliver = (q: QuestionRow) => deliverAnswered(d, q);
  return { answer: (id, a) => d.questions.answer(id, a, deliver) };
}

/** Inside the answer's transaction: the asker and the session asked about each get the
 * event once (archived or deleted ones get nothing). Urgent and without any subscription:
 * delivery holds it only while that conversation's turn runs, and the key makes it exactly
 * once. It is the relay's message, never the owner's, so loop protection is not reset. */
export function deliverAnswered(d: Omit<AnsweringDeps, "questions">, q: QuestionRow): void {
  const to = new Set([q.asked_by ?? q.session_id, q.session_id]);
  for (const sessionId of to) {
    const s = d.sessions.get(sessionId);
    // An asker on a paired relay gets it through the link (pairing/outbox.ts).
    if (!((s && !s.archived_at) || sessionId.startsWith("rmt_"))) continue;
    d.delivery.deliverUrgent(sessionId, {
      type: "question_answered",
      text: answerEventText(d, q, sessionId),
      key: `question_answered:${q.id}`,
      sessionId: q.session_id,
    });
  }
}
