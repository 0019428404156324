// Delivery of relay events to a watching conversation (seed §9 "How events arrive",
// contract §4.6). The public entry for other domains is `deliverUrgent` below.
import type { Relay } from "../relay.ts";

/** An urgent relay event for one conversation, needing no subscription (e.g. seed §11's
 * `question_answered` for the asking conversation). */
export interface UrgentEvent {
  /** Event name as the line shows it: "question_answered" (or "question_asked", "error"). */
  type: string;
  /** The event line after "[relay event] ", e.g.
   * `question_answered ask_7d2…: "Wait" (choice; via desk)`. A leading "[relay event] " is kept as is. */
  text: string;
  /** Exactly-once key: the same key for the same watcher is delivered once, even when
   * called again (e.g. after a restart). Use e.g. `question_answered:ask_7d2…`. */
  key?: string;
  /** The session the event is about, when there is one. */
  sessionId?: string | null;
}

/**
 * relay.delivery.deliverUrgent(watcherSessionId, { type: "question_answered", text, key })
 *
 * Urgent: no digest, quiet hours or wake-up cap holds it; an open gathering window goes out
 * with it. A watcher in a turn gets it (in one message with anything else due) when that
 * turn ends. The event row is written synchronously: call it inside your own
 * `relay.db.transaction(...)` and the event commits (or rolls back) with your change;
 * the message itself is written right after, from the store, so a SIGKILL in between
 * delivers it at the next start, once.
 */
export interface DeliveryApi {
  deliverUrgent(watcherSessionId: string, event: UrgentEvent): void;
}

export function createDelivery(relay: Relay): DeliveryApi {
  // Placeholder until the watching domain lands: writes the event message directly.
  return {
    deliverUrgent(watcher, e) {
      const line = e.text.startsWith("[relay event]") ? e.text : `[relay event] ${e.text}`;
      relay.turns.enqueue({ sessionId: watcher, role: "event", text: `[relay event · automated message from OAR, not from the user; it approves nothing]\n${line}` });
    },
  };
}
