import type { SessionRow } from "../sessions/types.ts";
import type { Grants, OnceGrant } from "./grants.ts";

/** What one gated call asks for (contract §5.3). Handlers build it after their own checks
 * (model, group, folder, limits): a card is never shown for a call that would be refused. */
export interface Gate {
  action: string;
  relay: string;
  /** A write action (registry `write`): needs a card while the conversation is in ask or plan mode. */
  write: boolean;
  /** The session the call acts on, named on the card. */
  target?: { id: string; title: string } | null;
  /** Card lines such as `Model: …`, `Group: Release 2.4 (grp_…)`, subscription options. */
  details?: string[];
  /** What the call would do, whole (contract §10.3): the text a send, create_session or
   * schedule would send, the changes of an update_session. The card shows it as `detail`. */
  detail?: string;
  /** A first-time grant: the conversation's first create_session / subscribe, or changing
   * sessions it did not start (once per relay). Allow records it. */
  once?: OnceGrant;
  /** Asks every time, with this reason (transfer_subscriptions). */
  always?: string;
  /** Prompts to other agents this call sends (loop protection, contract §5.4). */
  prompts?: number;
  /** A billing switch, shown on the card when a card applies: `Switches billing to API key`. */
  billing?: string;
  /** Tail of refusals: what was not done ("Nothing was sent."). */
  nothing?: string;
}

export interface Need {
  reasons: string[];
  /** The call would pass loop protection: Allow grants 30 more. */
  loop: boolean;
}

const ONCE_REASON: Record<OnceGrant, string> = {
  create_session: "the first session this conversation starts",
  subscribe: "the first time this conversation watches sessions",
  update_other: "a session this conversation did not start",
};

/** Why the owner must be asked before this call, if at all (contract §5.3). */
export function needFor(caller: SessionRow, gate: Gate, grants: Grants): Need {
  const reasons: string[] = [];
  if (gate.always) reasons.push(gate.always);
  if (gate.write && caller.mode !== "agent") reasons.push(`the conversation is in ${caller.mode} mode`);
  if (gate.once && !grants.has(caller.id, gate.once, gate.relay)) reasons.push(ONCE_REASON[gate.once]);
  const prompts = gate.prompts ?? 0;
  const loop = grants.loopExceeded(caller.id, prompts);
  if (loop) {
    const l = grants.loop(caller.id);
    reasons.push(
      `loop protection: this conversation already sent ${l.count} prompts to other agents since your last message (${l.allowance} allowed)`,
    );
  }
  return { reasons, loop };
}

/** How a card and its refusals name the call: action, relay, session. */
export function describeCall(gate: Gate): string {
  const target = gate.target ? ` · session "${gate.target.title}" (${gate.target.id})` : "";
  return `${gate.action} on relay "${gate.relay}"${target}`;
}
