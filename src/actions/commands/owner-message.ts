import type { ActionServices } from "../services.ts";

export type OwnerMessageDeps = Pick<ActionServices, "approvals" | "schedules" | "pairing" | "turns">;

/** The owner's own message: a turn, and it resets the conversation's loop count. */
export function ownerMessage(
  d: OwnerMessageDeps,
  sessionId: string,
  text: string,
): { messageId: string; turnId: string } {
  d.approvals.resetLoop(sessionId);
  d.schedules.ownerSpoke(sessionId);
  d.pairing.ownerSaid(sessionId, text);
  const { turn, messageId } = d.turns.enqueue({ sessionId, role: "user", text });
  return { messageId, turnId: turn.id };
}
