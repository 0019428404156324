import type { Bus } from "../core/bus.ts";
import { type CardLike, cardNeed, type Need, type QuestionLike, questionNeed, turnNeed } from "./needs.ts";
import type { Notifier } from "./notifier.ts";

// Where the relay's events become needs of the owner (contract §10.3): a card or question
// raised → raise; decided, expired, answered, ended → settle; a turn the owner started
// ending in an error (or finishing, with turnsDone) → raise. Listens on the bus, which
// carries events after their commit, so what is raised is durable. Cards and questions are
// read back by id: the notification says what the store says.

export interface NotifyHookDeps {
  bus: Bus;
  notifier: Pick<Notifier, "raise" | "settle" | "store">;
  /** A card as the owner API shows it (with its `detail`) and its status. */
  card(id: string): (CardLike & { status: string }) | undefined;
  question(id: string): (QuestionLike & { status: string }) | undefined;
  turn(id: string): { error: string | null; reply_text: string | null } | undefined;
  sessionTitle(id: string): string | null;
  turnsDone(): boolean;
  /** Masks secrets (keys, tokens) in text leaving the relay. */
  mask(text: string): string;
}

export function installNotifyHooks(d: NotifyHookDeps): { reconcile(): void } {
  const raise = (n: Need) => d.notifier.raise({ ...n, title: d.mask(n.title), text: d.mask(n.text) });
  const raiseCard = (id: string) => {
    const c = d.card(id);
    if (c?.status === "pending") raise(cardNeed(c, d.sessionTitle(c.session)));
  };
  const raiseQuestion = (id: string) => {
    const q = d.question(id);
    if (q?.status === "pending") raise(questionNeed(q, d.sessionTitle(q.session_id)));
  };
  /** Every need not settled yet whose card or question no longer waits (the restart's expiry,
   * an archived session's questions) is settled: it is not notified, nor retried. */
  const reconcile = () => {
    for (const key of d.notifier.store.openKeys()) {
      const [kind, id] = [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)];
      const status = kind === "card" ? d.card(id)?.status : kind === "question" ? d.question(id)?.status : "pending";
      if (status !== "pending") d.notifier.settle(key);
    }
  };
  d.bus.on((e) => {
    switch (e.type) {
      case "card.created":
        // Questions announce themselves as cards too (the page's Inbox); the store tells which.
        if (d.question(e.cardId)) raiseQuestion(e.cardId);
        else raiseCard(e.cardId);
        return;
      case "card.decided":
        d.notifier.settle(d.question(e.cardId) ? `question:${e.cardId}` : `card:${e.cardId}`);
        return;
      case "question.updated":
        if (e.status === "pending") raiseQuestion(e.questionId);
        else d.notifier.settle(`question:${e.questionId}`);
        return;
      case "session.archived":
      case "session.deleted":
        reconcile();
        return;
      case "turn.ended": {
        const t = d.turn(e.turnId);
        const need = turnNeed(
          {
            turnId: e.turnId,
            sessionId: e.sessionId,
            status: e.status,
            byOwner: !!e.byOwner,
            error: t?.error,
            reply: t?.reply_text,
          },
          d.sessionTitle(e.sessionId),
          d.turnsDone(),
        );
        if (need) raise(need);
        return;
      }
    }
  });
  return { reconcile };
}
