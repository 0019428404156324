import type { Bus } from "../core/bus.ts";
import {
  type CardLike,
  cardNeed,
  type Need,
  noticeKey,
  noticeNeed,
  type QuestionLike,
  questionNeed,
  turnNeed,
} from "./needs.ts";
import type { Notifier } from "./notifier.ts";

// Where the relay's events become needs of the owner (contract §10.3): a card or question
// raised → raise; decided, expired, answered, ended → settle; a turn the owner started
// ending in an error (or finishing, with turnsDone) → raise; a budget's 80 % notice (§10.4)
// → raise, dismissed → settle. Listens on the bus, which carries events after their commit,
// so what is raised is durable. Cards and questions are read back by id: the notification
// says what the store says. A relay killed between a commit and its need's record would
// lose the notification: start-up raises again everything still waiting for the owner (a
// need recorded before is a no-op by its key, so nothing sent goes twice).

export interface NotifyHookDeps {
  bus: Bus;
  notifier: Pick<Notifier, "raise" | "settle" | "store">;
  /** A card as the owner API shows it (with its `detail`) and its status. */
  card(id: string): (CardLike & { status: string }) | undefined;
  question(id: string): (QuestionLike & { status: string }) | undefined;
  turn(id: string): { error: string | null; reply_text: string | null } | undefined;
  sessionTitle(id: string): string | null;
  turnsDone(): boolean;
  /** Ids of the cards and questions pending now (start-up's catch-up). */
  pendingCards(): string[];
  pendingQuestions(): string[];
  /** The budget notices the Inbox shows: not dismissed, of each budget's current period. */
  pendingNotices(): NoticeLike[];
  /** Masks secrets (keys, tokens) in text leaving the relay. */
  mask(text: string): string;
}

type NoticeLike = { budget: string; period: string; text: string; session: string | null };

export function installNotifyHooks(d: NotifyHookDeps): { startUp(): void } {
  const raise = (n: Need) => d.notifier.raise({ ...n, title: d.mask(n.title), text: d.mask(n.text) });
  const raiseCard = (id: string) => {
    const c = d.card(id);
    if (c?.status === "pending") raise(cardNeed(c, d.sessionTitle(c.session)));
  };
  const raiseQuestion = (id: string) => {
    const q = d.question(id);
    if (q?.status === "pending") raise(questionNeed(q, d.sessionTitle(q.session_id)));
  };
  const raiseNotice = (n: NoticeLike) => raise(noticeNeed(n, n.session ? d.sessionTitle(n.session) : null));
  /** Every need not settled yet whose card, question or notice no longer waits (the restart's
   * expiry, an archived session's questions, a notice dismissed or of a period now over) is
   * settled: it is not notified, nor retried. */
  const reconcile = () => {
    let notices: Set<string> | null = null;
    for (const key of d.notifier.store.openKeys()) {
      const [kind, id] = [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)];
      let waits = true;
      if (kind === "card") waits = d.card(id)?.status === "pending";
      else if (kind === "question") waits = d.question(id)?.status === "pending";
      else if (kind === "notice") {
        notices ??= new Set(d.pendingNotices().map((n) => noticeKey(n.budget, n.period)));
        waits = notices.has(key);
      }
      if (!waits) d.notifier.settle(key);
    }
  };
  /** At start-up (after cards and questions the restart ended were ended): what no longer
   * waits is settled, and everything still waiting is raised; only a need never recorded is
   * new (one killed between its commit and its record), and it goes out as any other does:
   * gathered with what follows within 30 s, held by quiet hours. */
  const startUp = () => {
    reconcile();
    for (const id of d.pendingCards()) raiseCard(id);
    for (const id of d.pendingQuestions()) raiseQuestion(id);
    for (const n of d.pendingNotices()) raiseNotice(n);
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
      case "budget.notice":
        raiseNotice(e);
        return;
      case "budget.notice.dismissed":
        d.notifier.settle(noticeKey(e.budget, e.period));
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
  return { startUp };
}
