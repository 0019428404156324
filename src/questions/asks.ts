import { DAY_MS } from "./answer-event.ts";
import { newId } from "../core/ids.ts";
import { RelayError } from "../core/errors.ts";
import type { Bus } from "../core/bus.ts";
import type { Clock } from "../core/clock.ts";
import type { Db } from "../store/db.ts";
import type { Questions, QuestionRow } from "./ask-user.ts";

export const QUESTION_LIMIT = 20;

export interface NewAsk {
  askedBy: string;
  sessionId: string;
  question: string;
  options: string[];
  recommendation: string | null;
  detail: string | null;
}

/** Non-blocking questions (seed §11): `ask` rows in the questions table. The asker goes on
 * working; the owner answers in the session or the Inbox, and the answer comes back as
 * the urgent relay event `question_answered` to the asker and the session asked about. */
/** What asks use: the questions table and store, the clock, the bus, the sessions asked
 * about. Answers go through questions/answering.ts. */
export interface AsksDeps {
  db: Db;
  clock: Pick<Clock, "now">;
  bus: Pick<Bus, "emit">;
  questions: Pick<Questions, "get" | "end">;
  sessions: { get(id: string): { title: string } | undefined };
}

export class Asks {
  private d: AsksDeps;

  constructor(d: AsksDeps) {
    this.d = d;
  }

  /** contract §6: 20 pending per asking conversation, 20 per session asked about. */
  checkLimits(askedBy: string, sessionId: string): void {
    const db = this.d.db;
    const byAsker = (
      db
        .prepare("SELECT COUNT(*) AS n FROM questions WHERE kind = 'ask' AND status = 'pending' AND asked_by = ?")
        .get(askedBy) as { n: number }
    ).n;
    if (byAsker >= QUESTION_LIMIT) {
      throw new RelayError(
        "REMOTE_RELAY_QUESTION_LIMIT",
        `This conversation already has ${byAsker} pending questions (at most ${QUESTION_LIMIT}). Wait for answers or withdraw one. Nothing was asked.`,
      );
    }
    const about = (
      db
        .prepare("SELECT COUNT(*) AS n FROM questions WHERE kind = 'ask' AND status = 'pending' AND session_id = ?")
        .get(sessionId) as { n: number }
    ).n;
    if (about >= QUESTION_LIMIT) {
      const s = this.d.sessions.get(sessionId);
      throw new RelayError(
        "REMOTE_RELAY_QUESTION_LIMIT",
        `Session "${s?.title ?? sessionId}" (${sessionId}) already has ${about} pending questions (at most ${QUESTION_LIMIT}). Nothing was asked.`,
      );
    }
  }

  create(a: NewAsk): QuestionRow {
    const { d } = this;
    const id = newId("ask");
    d.db.transaction(() => {
      this.checkLimits(a.askedBy, a.sessionId);
      d.db
        .prepare(`INSERT INTO questions (id, kind, session_id, asked_by, question, options_json, recommendation, detail, status, created_at)
        VALUES (?, 'ask', ?, ?, ?, ?, ?, ?, 'pending', ?)`)
        .run(
          id,
          a.sessionId,
          a.askedBy,
          a.question,
          JSON.stringify(a.options),
          a.recommendation,
          a.detail,
          d.clock.now(),
        );
    })();
    // The card shows in the session asked about (and in the Inbox).
    d.bus.emit({ type: "card.created", sessionId: a.sessionId, cardId: id });
    d.bus.emit({ type: "question.updated", sessionId: a.sessionId, questionId: id, status: "pending" });
    return d.questions.get(id)!;
  }

  /** The conversation's asks (or, with `about`, the asks about that session): pending, and
   * answered, dismissed or withdrawn within the past day. */
  list(opts: { askedBy?: string; about?: string }): QuestionRow[] {
    const since = this.d.clock.now() - DAY_MS;
    const where = opts.about ? "session_id = ?" : "(asked_by = ? OR session_id = ?)";
    const params = opts.about ? [opts.about] : [opts.askedBy, opts.askedBy];
    return this.d.db
      .prepare(`SELECT * FROM questions WHERE kind = 'ask' AND ${where}
      AND (status = 'pending' OR (status IN ('answered', 'dismissed', 'withdrawn') AND ended_at >= ?)) ORDER BY created_at`)
      .all(...params, since) as QuestionRow[];
  }

  /** Only the asking conversation withdraws its question (contract §8: else FORBIDDEN). */
  withdraw(caller: string, id: string): QuestionRow {
    const NOTHING = "Nothing was withdrawn.";
    const q = this.d.questions.get(id);
    if (q?.kind !== "ask")
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No question "${id.slice(0, 80)}" asked with ask on this relay (list_questions shows yours). ${NOTHING}`,
      );
    if (q.asked_by !== caller)
      throw new RelayError(
        "REMOTE_RELAY_FORBIDDEN",
        `Question ${q.id} was asked by another conversation: only the asking conversation can withdraw it. ${NOTHING}`,
      );
    if (q.status !== "pending")
      throw new RelayError("REMOTE_RELAY_NOT_FOUND", `Question ${q.id} is no longer pending (${q.status}). ${NOTHING}`);
    this.d.questions.end(q.id, "withdrawn");
    this.d.bus.emit({ type: "question.updated", sessionId: q.session_id, questionId: q.id, status: "withdrawn" });
    return this.d.questions.get(q.id)!;
  }

  /** Compaction (contract §3): the new conversation takes over the asks it made and the
   * pending asks about it. For POST /api/sessions/:id/compact: call before archiving the old one. */
  moveConversation(from: string, to: string): void {
    this.d.db.prepare("UPDATE questions SET asked_by = ? WHERE kind = 'ask' AND asked_by = ?").run(to, from);
    this.d.db
      .prepare("UPDATE questions SET session_id = ? WHERE kind = 'ask' AND session_id = ? AND status = 'pending'")
      .run(to, from);
  }
}
