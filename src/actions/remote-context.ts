import type { Origin } from "../pairing/origin.ts";

/** A relay_tool call this relay executes for a conversation on a paired relay. */
export interface RemoteContext {
  /** The calling relay, as this relay knows it (peer_clients.name). */
  relay: string;
  /** The calling conversation's id on its own relay. */
  session: string;
  /** Where the prompt chain has been (contract §5.5). */
  origin: Origin;
  /** The calling relay's owner already allowed this call on a card there. */
  approved: boolean;
  /** Subscriptions the conversation holds on other relays (its own included). */
  heldElsewhere?: number;
  /** Set when the call stopped at a card: the calling relay shows it and calls again. */
  approvalNeeded?: {
    action: string;
    target: { id: string; title: string } | null;
    details: string[];
    detail?: string;
    billing?: string;
    reasons: string[];
    write: boolean;
  };
}
