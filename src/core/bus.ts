// In-process event bus. Domains publish after their transaction commits, so listeners
// (the UI stream, waiters, watchers) only ever see what is durable.
export type BusEvent =
  | { type: "session.updated"; sessionId: string }
  | { type: "session.deleted"; sessionId: string }
  | { type: "session.archived"; sessionId: string }
  | { type: "message.created"; sessionId: string; messageId: string; role: string }
  | { type: "turn.started"; sessionId: string; turnId: string }
  | { type: "turn.progress"; sessionId: string; turnId: string; text?: string; offset?: number }
  | { type: "turn.ended"; sessionId: string; turnId: string; status: string; role?: string; byOwner?: boolean }
  | { type: "task.updated"; sessionId: string; taskId: string; status: string; taskType: string }
  | { type: "card.created"; sessionId: string; cardId: string; card?: unknown }
  | { type: "card.decided"; sessionId: string; cardId: string; status: string; card?: unknown }
  | { type: "schedule.updated"; sessionId: string; scheduleId: string }
  | { type: "question.updated"; sessionId: string; questionId: string; status: string }
  | { type: "settings.updated" }
  | {
      type: "budget.notice";
      budget: string;
      noticeId: string;
      /** The period key it is kept under (`d:YYYY-MM-DD`, `m:YYYY-MM`, `t`). */
      period: string;
      text: string;
      /** A session's own budget: that session. */
      session: string | null;
    }
  | { type: "budget.notice.dismissed"; budget: string; period: string };

type Listener = (e: BusEvent) => void;

export class Bus {
  private listeners = new Set<Listener>();

  on(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(e: BusEvent): void {
    for (const fn of [...this.listeners]) {
      try {
        fn(e);
      } catch (err) {
        console.error("[bus] listener failed:", err);
      }
    }
  }
}
