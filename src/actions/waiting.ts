import type { ActionContext } from "./types.ts";
import type { TurnRow } from "../sessions/types.ts";
import { pendingQuestions } from "../sessions/views.ts";

/** The wait a call asked for, clamped to Longest wait per tool call, with the note the
 * agent reads when it asked for more. */
export function effectiveWait(ctx: ActionContext, requested: number | undefined): { seconds: number; note?: string } {
  const longest = ctx.relay.settings.get().longestWaitMinutes * 60;
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
export async function waitForTurn(ctx: ActionContext, turn: TurnRow, waitSeconds: number | undefined): Promise<Record<string, unknown>> {
  const { relay } = ctx;
  const wait = effectiveWait(ctx, waitSeconds);
  const deadline = relay.clock.now() + wait.seconds * 1000;
  for (;;) {
    const t = relay.sessions.turn(turn.id)!;
    const out = turnStatus(ctx, t);
    if (out || relay.clock.now() >= deadline || ctx.signal.aborted) {
      const base = out ?? stillGoing(ctx, t);
      return {
        ...base,
        session: t.session_id,
        message_id: t.message_id,
        openUrl: relay.openUrl(t.session_id),
        ...(wait.note ? { note: [wait.note, base.note].filter(Boolean).join(" ") } : {}),
      };
    }
    await relay.turns.waitChange([t.id, t.session_id], deadline, ctx.signal);
  }
}

/** A final status (or a question waiting), or null while the turn is queued or running. */
function turnStatus(ctx: ActionContext, t: TurnRow): Record<string, unknown> | null {
  const model = t.model;
  switch (t.status) {
    case "done":
      return { status: "done", reply: { text: t.reply_text ?? "", model } };
    case "stopped":
      return { status: "stopped", reply: { text: t.reply_text ?? "", model } };
    case "error":
      return { status: "error", error: t.error ?? "The turn failed.", reply: { text: t.reply_text ?? "", model } };
    case "running": {
      const questions = pendingQuestions(ctx.relay, t.session_id).filter((q) => q.kind === "ask_user");
      if (questions.length) return { status: "waiting_question", pendingQuestions: questions, note: "The turn waits on a question card; the owner (or an agent allowed to, with answer_question) answers it." };
      return null;
    }
    default:
      return null;
  }
}

function stillGoing(ctx: ActionContext, t: TurnRow): Record<string, unknown> {
  if (t.status === "queued") {
    return { status: "queued", queuePosition: ctx.relay.turns.queuePosition(t), note: "Another turn is ahead; call wait with this session and message_id to keep waiting." };
  }
  const live = ctx.relay.turns.inFlight(t.id);
  return { status: "running", reply: { text: live?.text ?? "", model: t.model }, note: "The turn is still running; call wait with this session and message_id to keep waiting." };
}

export function statusSummary(action: string, relayName: string, sessionId: string, r: Record<string, unknown>): string {
  const status = String(r.status);
  const extra = status === "queued" ? ` (position ${r.queuePosition})` : status === "error" ? `: ${String(r.error).slice(0, 120)}` : "";
  return `${action} → ${relayName} session ${sessionId}: ${status}${extra}`;
}
