import type { ActionContext } from "./types.ts";
import type { TurnRow } from "../sessions/types.ts";
import { pendingQuestions } from "../sessions/views.ts";

/** What a wait answers (contract §4.4): `status` and the fields that go with it. */
export type TurnWait = Record<string, unknown> & { status: string };

type WaitDeps = Pick<
  ActionContext,
  "settings" | "clock" | "sessions" | "turns" | "address" | "signal" | "questions" | "budgets"
>;

/** The wait a call asked for, clamped to Longest wait per tool call, with the note the
 * agent reads when it asked for more. */
export function effectiveWait(
  { settings }: Pick<ActionContext, "settings">,
  requested: number | undefined,
): { seconds: number; note?: string } {
  const longest = settings.get().longestWaitMinutes * 60;
  if (requested === undefined) return { seconds: longest };
  if (requested > longest) {
    return {
      seconds: longest,
      note: `wait_seconds ${requested} is more than this relay's Longest wait per tool call (${longest} s); waited at most ${longest} s.`,
    };
  }
  return { seconds: requested };
}

/** Waits on the relay clock until the turn ends, asks a question, or the wait runs out,
 * and answers with the status table of contract §4.4. */
export async function waitForTurn(d: WaitDeps, turn: TurnRow, waitSeconds: number | undefined): Promise<TurnWait> {
  const { clock, sessions, turns, address, signal } = d;
  const wait = effectiveWait(d, waitSeconds);
  const deadline = clock.now() + wait.seconds * 1000;
  for (;;) {
    const t = sessions.turn(turn.id)!;
    // A turn a budget holds does not start without the owner: the agent hears it at once.
    const out = turnStatus(d, t) ?? (t.status === "queued" && d.budgets.heldFor(t.id) ? stillGoing(d, t) : null);
    if (out || clock.now() >= deadline || signal.aborted) {
      const base = out ?? stillGoing(d, t);
      return {
        ...base,
        session: t.session_id,
        message_id: t.message_id,
        openUrl: address.openUrl(t.session_id),
        ...(wait.note ? { note: [wait.note, base.note].filter(Boolean).join(" ") } : {}),
      };
    }
    await turns.waitChange([t.id, t.session_id], deadline, signal);
  }
}

/** A final status (or a question waiting), or null while the turn is queued or running. */
function turnStatus(d: WaitDeps, t: TurnRow): TurnWait | null {
  const model = t.model;
  switch (t.status) {
    case "done":
      return { status: "done", reply: { text: t.reply_text ?? "", model } };
    case "stopped":
      return { status: "stopped", reply: { text: t.reply_text ?? "", model } };
    case "error":
      return { status: "error", error: t.error ?? "The turn failed.", reply: { text: t.reply_text ?? "", model } };
    case "running": {
      const questions = pendingQuestions(d, t.session_id).filter((q) => q.kind === "ask_user");
      if (questions.length)
        return {
          status: "waiting_question",
          pendingQuestions: questions,
          note: "The turn waits on a question card; the owner (or an agent allowed to, with answer_question) answers it.",
        };
      return null;
    }
    default:
      return null;
  }
}

function stillGoing({ turns, budgets }: WaitDeps, t: TurnRow): TurnWait {
  const held = t.status === "queued" ? budgets.heldFor(t.id) : undefined;
  if (held) {
    // A budget holds it (contract §10.4): it waits in its queue, the owner was asked.
    const { note, ...heldForBudget } = held;
    return { status: "queued", queuePosition: turns.queuePosition(t), heldForBudget, note };
  }
  if (t.status === "queued") {
    return {
      status: "queued",
      queuePosition: turns.queuePosition(t),
      note: "Another turn is ahead; call wait with this session and message_id to keep waiting.",
    };
  }
  const live = turns.inFlight(t.id);
  return {
    status: "running",
    reply: { text: live?.text ?? "", model: t.model },
    note: "The turn is still running; call wait with this session and message_id to keep waiting.",
  };
}

export function statusSummary(action: string, relayName: string, sessionId: string, r: TurnWait): string {
  const extra =
    r.status === "queued"
      ? ` (position ${r.queuePosition})`
      : r.status === "error"
        ? `: ${String(r.error).slice(0, 120)}`
        : "";
  return `${action} → ${relayName} session ${sessionId}: ${r.status}${extra}`;
}
