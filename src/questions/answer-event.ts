import { fromJson } from "../store/db.ts";
import type { QuestionRow } from "./ask-user.ts";

export const DAY_MS = 24 * 60 * 60_000;

/** What the event line names: this relay, and the titles of the sessions it is about (a
 * paired relay's conversation too). */
export interface AnswerEventDeps {
  name: string;
  sessions: { get(id: string): { title: string } | undefined };
  pairing: { remoteTitle(sessionId: string): string | null };
}

/** The event line of `question_answered` (seed §11): every field the agent acts on, as JSON. */
export function answerEventText(d: AnswerEventDeps, q: QuestionRow, forSession: string): string {
  const fields = {
    question_id: q.id,
    answer: q.answer,
    choice: q.choice,
    dismissed: q.status === "dismissed",
    via: q.via ?? d.name,
  };
  const question = q.question.length > 200 ? `${q.question.slice(0, 199)}…` : q.question;
  const about =
    q.session_id !== forSession
      ? ` about session "${d.sessions.get(q.session_id)?.title ?? "?"}" (${q.session_id})`
      : "";
  const by =
    q.asked_by && q.asked_by !== forSession
      ? ` asked by session "${d.sessions.get(q.asked_by)?.title ?? d.pairing.remoteTitle(q.asked_by) ?? "?"}" (${q.asked_by})`
      : "";
  const options = fromJson<string[]>(q.options_json, []);
  return `question_answered ${q.id}${about}${by}: "${question}"${options.length ? ` [${options.join(" | ")}]` : ""} → ${JSON.stringify(fields)}`;
}
