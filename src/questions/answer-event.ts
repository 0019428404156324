import { fromJson } from "../store/db.ts";
import type { Relay } from "../relay.ts";
import type { QuestionRow } from "./ask-user.ts";

export const DAY_MS = 24 * 60 * 60_000;

/** The event line of `question_answered` (seed §11): every field the agent acts on, as JSON. */
export function answerEventText(relay: Relay, q: QuestionRow, forSession: string): string {
  const fields = {
    question_id: q.id,
    answer: q.answer,
    choice: q.choice,
    dismissed: q.status === "dismissed",
    via: q.via ?? relay.name,
  };
  const question = q.question.length > 200 ? `${q.question.slice(0, 199)}…` : q.question;
  const about = q.session_id !== forSession ? ` about session "${relay.sessions.get(q.session_id)?.title ?? "?"}" (${q.session_id})` : "";
  const by = q.asked_by && q.asked_by !== forSession ? ` asked by session "${relay.sessions.get(q.asked_by)?.title ?? relay.pairing.remoteTitle(q.asked_by) ?? "?"}" (${q.asked_by})` : "";
  const options = fromJson<string[]>(q.options_json, []);
  return `question_answered ${q.id}${about}${by}: "${question}"${options.length ? ` [${options.join(" | ")}]` : ""} → ${JSON.stringify(fields)}`;
}

/** Sends `question_answered` to one conversation. Urgent and without any subscription: the
 * watching domain's delivery holds it only while that conversation's turn runs, and the
 * key makes it exactly once. Called inside the answer's transaction. It is the relay's
 * message, never the owner's, so loop protection is not reset. */
export function deliverAnswer(relay: Relay, sessionId: string, q: QuestionRow): void {
  relay.delivery.deliverUrgent(sessionId, {
    type: "question_answered",
    text: answerEventText(relay, q, sessionId),
    key: `question_answered:${q.id}`,
    sessionId: q.session_id,
  });
}
