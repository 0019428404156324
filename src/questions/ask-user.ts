import type { Bus } from "../core/bus.ts";
import type { Clock } from "../core/clock.ts";
import { newId } from "../core/ids.ts";
import type { Db } from "../store/db.ts";
import { fromJson } from "../store/db.ts";
import { sql } from "../store/sql.ts";
import { RelayError } from "../core/errors.ts";

export interface QuestionRow {
  id: string;
  kind: "ask_user" | "ask";
  session_id: string;
  asked_by: string | null;
  turn_id: string | null;
  question: string;
  options_json: string;
  recommendation: string | null;
  detail: string | null;
  status: "pending" | "answered" | "dismissed" | "withdrawn" | "ended";
  answer: string | null;
  choice: string | null;
  via: string | null;
  created_at: number;
  ended_at: number | null;
}

export interface Answer {
  choice?: string;
  answer?: string;
  dismiss?: boolean;
  via?: string;
}

/** Delivers an answered or dismissed `ask` to whoever gets it (questions/answering.ts); runs
 * inside the answer's transaction. */
export type DeliverAnswer = (q: QuestionRow) => void;

/** Questions waiting for the owner. An `ask_user` question blocks its agent's turn until
 * the owner (or another agent through answer_question) answers it. */
export class Questions {
  private waiting = new Map<string, (a: Answer) => void>();

  constructor(
    private db: Db,
    private clock: Clock,
    private bus: Bus,
  ) {}

  get(id: string): QuestionRow | undefined {
    return this.db.prepare("SELECT * FROM questions WHERE id = ?").get(id) as QuestionRow | undefined;
  }

  pending(sessionId?: string): QuestionRow[] {
    return sessionId
      ? (sql(this.db, "SELECT * FROM questions WHERE session_id = ? AND status = 'pending' ORDER BY created_at").all(
          sessionId,
        ) as QuestionRow[])
      : (this.db
          .prepare("SELECT * FROM questions WHERE status = 'pending' ORDER BY created_at")
          .all() as QuestionRow[]);
  }

  /** Raises an ask_user card and resolves with the answer. */
  askUser(
    sessionId: string,
    turnId: string | null,
    question: string,
    options: string[],
    signal: AbortSignal,
  ): Promise<Answer> {
    const id = newId("q");
    this.db
      .prepare(`INSERT INTO questions (id, kind, session_id, turn_id, question, options_json, status, created_at)
      VALUES (?, 'ask_user', ?, ?, ?, ?, 'pending', ?)`)
      .run(id, sessionId, turnId, question, JSON.stringify(options), this.clock.now());
    this.bus.emit({ type: "card.created", sessionId, cardId: id });
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      signal.addEventListener(
        "abort",
        () => {
          this.waiting.delete(id);
          this.end(id, "ended");
          resolve({});
        },
        { once: true },
      );
    });
  }

  /** A conversation's ended questions (answered, dismissed, withdrawn, ended), the latest
   * `limit`, oldest first. */
  history(sessionId: string, limit: number): QuestionRow[] {
    return this.db
      .prepare(
        `SELECT * FROM (SELECT * FROM questions WHERE session_id = ? AND status != 'pending' ORDER BY created_at DESC LIMIT ${limit}) ORDER BY created_at`,
      )
      .all(sessionId) as QuestionRow[];
  }

  /** Its session was archived or deleted: the questions waiting in it end. Call inside the
   * caller's transaction. */
  endPendingFor(sessionId: string): void {
    this.db
      .prepare("UPDATE questions SET status = 'ended', ended_at = ? WHERE session_id = ? AND status = 'pending'")
      .run(this.clock.now(), sessionId);
  }

  /** Records the owner's (or an agent's) answer; an answered `ask` goes to whoever gets it
   * through `deliver`, in the same transaction (questions/answering.ts). */
  answer(id: string, a: Answer, deliver: DeliverAnswer): QuestionRow {
    const q = this.get(id);
    if (!q) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No question ${id} on this relay. Nothing was answered.`);
    if (q.status !== "pending")
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `Question ${id} is no longer pending (${q.status}). Nothing was answered.`,
      );
    const options = fromJson<string[]>(q.options_json, []);
    if (!a.dismiss && a.choice == null && (a.answer == null || a.answer === "")) {
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        "Give a choice or an answer (or dismiss the question). Nothing was answered.",
      );
    }
    if (a.choice != null && options.length && !options.includes(a.choice)) {
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `"${a.choice}" is not one of the options: ${options.join(", ")}. Nothing was answered.`,
      );
    }
    const status = a.dismiss ? "dismissed" : "answered";
    // The answer and its delivery to the asker (an `ask`) commit together: exactly once.
    this.db.transaction(() => {
      this.db
        .prepare(
          "UPDATE questions SET status = ?, answer = ?, choice = ?, via = ?, ended_at = ? WHERE id = ? AND status = 'pending'",
        )
        .run(status, a.answer ?? null, a.choice ?? null, a.via ?? null, this.clock.now(), id);
      if (q.kind === "ask") deliver?.(this.get(id)!);
    })();
    this.bus.emit({ type: "card.decided", sessionId: q.session_id, cardId: id, status });
    this.waiting.get(id)?.(a);
    this.waiting.delete(id);
    return this.get(id)!;
  }

  end(id: string, status: "ended" | "withdrawn"): void {
    const q = this.get(id);
    if (q?.status !== "pending") return;
    this.db.prepare("UPDATE questions SET status = ?, ended_at = ? WHERE id = ?").run(status, this.clock.now(), id);
    this.bus.emit({ type: "card.decided", sessionId: q.session_id, cardId: id, status });
  }

  /** After a restart no agent is waiting for an ask_user card any more. */
  recover(): void {
    this.db
      .prepare("UPDATE questions SET status = 'ended', ended_at = ? WHERE kind = 'ask_user' AND status = 'pending'")
      .run(this.clock.now());
  }
}

export function questionView(q: QuestionRow) {
  return {
    id: q.id,
    kind: q.kind,
    session: q.session_id,
    question: q.question,
    options: fromJson<string[]>(q.options_json, []),
    ...(q.recommendation ? { recommendation: q.recommendation } : {}),
    ...(q.detail ? { detail: q.detail } : {}),
    ...(q.kind === "ask" && q.asked_by && q.asked_by !== q.session_id ? { askedBy: q.asked_by } : {}),
    status: q.status,
    ...(q.answer != null ? { answer: q.answer } : {}),
    ...(q.choice != null ? { choice: q.choice } : {}),
    ...(q.via != null ? { via: q.via } : {}),
    createdAt: new Date(q.created_at).toISOString(),
    ...(q.ended_at != null ? { endedAt: new Date(q.ended_at).toISOString() } : {}),
  };
}
