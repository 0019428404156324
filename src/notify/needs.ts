// What needs the owner (contract §10.3): an approval or permission card, a question for the
// owner, a turn the owner started ending in an error, (only with `turnsDone`) a turn the
// owner started finishing, and a budget's 80 % notice (§10.4). Each becomes one Need keyed
// by what it is about, so the same card raised twice (a hook firing again, a restart) is
// still one notification.

export type NeedKind = "card" | "question" | "turn_error" | "turn_done" | "notice";

export interface CardOption {
  id: string;
  name: string;
}

export interface Need {
  /** `card:<id>`, `question:<id>`, `turn:<id>`, `notice:<budget>:<period>`. */
  key: string;
  kind: NeedKind;
  sessionId: string | null;
  sessionTitle: string | null;
  /** One line: what is asked or what happened. */
  title: string;
  /** Everything the owner needs to decide: a card's whole detail, the question, the error. */
  text: string;
  /** A card the notification can act on with an action token. */
  card?: { id: string; options: CardOption[] };
}

const ALLOW_DENY: CardOption[] = [
  { id: "allow", name: "Allow" },
  { id: "deny", name: "Deny" },
];

/** The fields of a card (as `cardView` shows it, with its `detail`) a Need uses. */
export interface CardLike {
  id: string;
  session: string;
  kind?: string;
  text: string;
  detail?: string | null;
  details?: string[];
  /** A permission card's choices (the CLI's options); Allow/Deny otherwise. */
  options?: CardOption[] | null;
}

export function cardNeed(card: CardLike, sessionTitle: string | null): Need {
  const detail = card.detail ?? (card.details ?? []).join("\n");
  let options = card.options?.length ? card.options.map((o) => ({ id: o.id, name: o.name })) : ALLOW_DENY;
  // A budget card's raise needs an amount a button cannot give: that one is made on the page.
  if (card.kind === "budget") options = options.filter((o) => o.id !== "raise");
  return {
    key: `card:${card.id}`,
    kind: "card",
    sessionId: card.session,
    sessionTitle,
    title: cardTitle(card),
    text: detail || card.text,
    card: { id: card.id, options },
  };
}

/** A permission card's text lists its files and input (JSON) inline, too much for a title:
 * "Claude asks to use Edit src/a.ts" (its detail says the rest). Other cards' text as it is. */
function cardTitle(card: CardLike): string {
  const tool = card.details?.[0]?.startsWith("Tool: ") ? card.details[0].slice("Tool: ".length) : null;
  const at = card.text.indexOf(" asks to use ");
  return card.kind === "permission" && tool && at > 0 ? `${card.text.slice(0, at)} asks to use ${tool}` : card.text;
}

export interface QuestionLike {
  id: string;
  session_id: string;
  question: string;
  options_json?: string | null;
  detail?: string | null;
}

/** Every pending `ask_user` and `ask` waits for the owner (the Inbox lists them all). */
export function questionNeed(q: QuestionLike, sessionTitle: string | null): Need {
  let options: string[] = [];
  try {
    const parsed = JSON.parse(q.options_json ?? "[]");
    if (Array.isArray(parsed)) options = parsed.map(String);
  } catch {}
  const lines = [q.question, ...options.map((o) => `• ${o}`), ...(q.detail ? ["", q.detail] : [])];
  return {
    key: `question:${q.id}`,
    kind: "question",
    sessionId: q.session_id,
    sessionTitle,
    title: `${quoted(sessionTitle)} asks you`,
    text: lines.join("\n"),
  };
}

export interface TurnEnd {
  turnId: string;
  sessionId: string;
  status: string;
  /** The owner's own message started it (bus `turn.ended` byOwner). */
  byOwner: boolean;
  error?: string | null;
  reply?: string | null;
}

/** A turn the owner started: an error always, a finish only with `turnsDone`; null when
 * nothing needs the owner (an agent's turn, a stop the owner asked for). */
export function turnNeed(t: TurnEnd, sessionTitle: string | null, turnsDone: boolean): Need | null {
  if (!t.byOwner) return null;
  const base = { key: `turn:${t.turnId}`, sessionId: t.sessionId, sessionTitle };
  if (t.status === "error") {
    return {
      ...base,
      kind: "turn_error",
      title: `${quoted(sessionTitle)}: the turn failed`,
      text: t.error || "The turn failed.",
    };
  }
  if (t.status === "done" && turnsDone) {
    return {
      ...base,
      kind: "turn_done",
      title: `${quoted(sessionTitle)} finished`,
      text: t.reply?.trim() || "The turn finished.",
    };
  }
  return null;
}

export const noticeKey = (budget: string, period: string): string => `notice:${budget}:${period}`;

/** A budget's 80 % notice (bus `budget.notice`): once per budget and period, as the Inbox
 * keeps it; `session` for a session's own budget. */
export function noticeNeed(
  n: { budget: string; period: string; text: string; session: string | null },
  sessionTitle: string | null,
): Need {
  return {
    key: noticeKey(n.budget, n.period),
    kind: "notice",
    sessionId: n.session,
    sessionTitle,
    title: `Budget "${n.budget}" passed 80 %`,
    text: n.text,
  };
}

const quoted = (title: string | null) => (title ? `"${title}"` : "A session");
