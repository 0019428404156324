import { existsSync } from "node:fs";
import { RelayError } from "../core/errors.ts";
import type { Relay } from "../relay.ts";
import type { SessionRow } from "../sessions/types.ts";
import { actionByName } from "../actions/registry.ts";
import { callRelayTool } from "../actions/dispatch.ts";
import { nothingDone } from "../actions/target.ts";
import { needFor, type Gate } from "../approvals/gate.ts";
import type { ClientRow, RemoteCallerRow } from "./store.ts";
import type { CallBody } from "./peer-protocol.ts";
import { MAX_HOPS } from "./origin.ts";
import type { RemoteContext } from "./remote-context.ts";

// A relay_tool call from a conversation on a paired relay, executed here under this relay's
// own rules (contract §5.6): Accept prompts, hop limits, and then the action's own checks
// (the 4-working limit, who started what, loop protection) with a stand-in caller that
// stands for the remote conversation. Cards are the calling relay's to show: a call that
// needs one stops before writing anything and answers `approvalNeeded`; the calling relay
// shows the card in the calling conversation and calls again with `approved`.

/** Actions another relay's agents cannot use while Accept prompts is off here (seed §7.1). */
function changesOrWatches(action: string, args: Record<string, unknown>): boolean {
  if (action === "ask") return args.session !== undefined;
  return ["send", "create_session", "update_session", "answer_question", "stop", "archive", "subscribe", "transfer_subscriptions", "schedule", "unschedule"].includes(action);
}

/** Prompts, which the hop limit counts (a schedule is a prompt later). */
const PROMPTS = new Set(["send", "create_session", "schedule"]);

/** `turn`: this relay's id of the turn a send/create_session/wait is about, so the calling
 * relay can tell that turn's turn_end from others (no echo, relay_tool.md §9). */
export type PeerCallAnswer = { result: Record<string, unknown>; turn?: string } | { approvalNeeded: NonNullable<RemoteContext["approvalNeeded"]> };

export async function executeRemote(relay: Relay, client: ClientRow, body: CallBody, signal: AbortSignal): Promise<PeerCallAnswer> {
  const pairing = relay.pairing;
  const def = actionByName(body.action);
  const args = body.args;
  const tail = nothingDone(body.action);
  const refuse = (e: RelayError): PeerCallAnswer => ({ result: e.toJSON() });

  if (def?.name === "ask" && args.session === undefined) {
    return refuse(new RelayError("REMOTE_RELAY_INVALID_INPUT", `ask on a paired relay needs session: a session there to ask about. Questions about your own conversation are asked on your own relay (leave out relay). Nothing was asked.`));
  }
  if (def && changesOrWatches(def.name, args) && !relay.settings.get().acceptPromptsFromOtherRelays) {
    return refuse(new RelayError("REMOTE_RELAY_PERMISSION",
      `Relay "${relay.name}" does not accept prompts from other relays' agents ("Accept prompts from other relays' agents" is off there): ${def.name} is refused; listing and reading still work. ${tail}`));
  }
  if (def && (PROMPTS.has(def.name) || (def.name === "ask" && args.session !== undefined))) {
    const o = body.origin;
    const self = [relay.name.toLowerCase()];
    if (o.relays.length >= MAX_HOPS && !o.ownerUnlocked.some((n) => self.includes(n.toLowerCase()))) {
      return refuse(new RelayError("REMOTE_RELAY_HOP_LIMIT",
        `This prompt has already crossed ${o.relays.length} relays (${o.relays.join(" → ")}); it is not passed on to relay "${relay.name}" unless the owner unlocked "${relay.name}" in the conversation it started from. ${tail}`));
    }
  }
  // Schedules are kept by the relay the agent runs on (relay_tool.md §10): a relay of this
  // version never sends one, and one that arrives anyway is refused as the calling relay would.
  if (def?.thisRelayOnly) return refuse(new RelayError("REMOTE_RELAY_UNSUPPORTED", `${def.thisRelayOnly} ${tail}`));

  const c = body.caller;
  let rc: RemoteCallerRow;
  try {
    rc = pairing.standIns.enter(client, { session: c.session, title: c.title || "Untitled", model: c.model }, tail);
  } catch (err) {
    if (err instanceof RelayError) return refuse(err);
    throw err;
  }
  let refused = true;
  try {
    const answer = await runAs(relay, client, rc, body, signal);
    refused = "approvalNeeded" in answer || answer.result.ok === false;
    return answer;
  } finally {
    pairing.standIns.leave(rc, refused);
  }
}

/** The call itself, with the stand-in as the caller. */
async function runAs(relay: Relay, client: ClientRow, rc: RemoteCallerRow, body: CallBody, signal: AbortSignal): Promise<PeerCallAnswer> {
  const pairing = relay.pairing;
  const c = body.caller;
  if (c.loopEpoch > rc.loop_epoch) {
    relay.db.transaction(() => {
      relay.approvals.resetLoop(rc.id);
      pairing.store.setLoopEpoch(rc.id, c.loopEpoch);
    })();
  }
  const now = relay.clock.now();
  const caller: SessionRow = {
    id: rc.id, title: c.title || "Untitled", provider: c.provider, model: c.model, effort: c.effort, mode: c.mode,
    // What the agent leaves out follows its own session "as far as the target relay offers it".
    cwd: existsSync(c.cwd) ? c.cwd : relay.defaultCwd,
    repo: null, branch: null, agent_token: "", via_session: c.startedByAgent ? `remote:${client.name}` : null,
    may_create_sessions: c.mayCreateSessions ? 1 : 0, group_id: null, acp_session_id: null, extra_json: "{}",
    message_count: 0, created_at: rc.created_at, last_activity_at: now, archived_at: null, deleted_at: null,
  };
  const remote: RemoteContext = { relay: client.name, session: c.session, origin: body.origin, approved: !!body.approved, heldElsewhere: c.heldElsewhere ?? 0 };
  const result = await pairing.current.run(remote, () =>
    callRelayTool(relay.services, caller, { ...body.args, action: body.action, relay: "this" }, { signal, remote }));
  if (remote.approvalNeeded) return { approvalNeeded: remote.approvalNeeded };
  // Seed §6: an agent of that relay wrote into a conversation here, so it opens there.
  if (result.ok && (body.action === "send") && typeof result.session === "string") pairing.agentWrote(result.session, client.name);
  const turn = result.ok !== false && typeof result.message_id === "string" ? relay.sessions.turnByMessage(result.message_id)?.id : undefined;
  return turn ? { result, turn } : { result };
}

/** The approval gate for a remote caller (called from Approvals.require): this relay's rules
 * decide whether the owner must be asked (mode from the caller, grants and loop count of
 * the stand-in); the card itself is the calling relay's. */
export function remoteGate(relay: Relay, caller: SessionRow, gate: Gate): void {
  const remote = relay.pairing.current.getStore();
  if (!remote) throw new RelayError("REMOTE_RELAY_PERMISSION", `No calling relay to ask the owner on. ${gate.nothing ?? "Nothing was done."}`);
  const grants = relay.approvals.grants;
  const need = needFor(caller, gate, grants);
  const prompts = gate.prompts ?? 0;
  if (need.reasons.length && !remote.approved) {
    remote.approvalNeeded = {
      action: gate.action, target: gate.target ?? null, details: gate.details ?? [], ...(gate.billing ? { billing: gate.billing } : {}),
      reasons: need.reasons, write: gate.write,
    };
    throw new RelayError("REMOTE_RELAY_PERMISSION", `Needs the owner's approval on the calling relay. ${gate.nothing ?? "Nothing was done."}`);
  }
  relay.db.transaction(() => {
    if (need.reasons.length) {
      if (gate.once) grants.allow(caller.id, gate.once, gate.relay);
      if (need.loop && grants.loopExceeded(caller.id, prompts)) grants.extendLoop(caller.id);
    }
    grants.countPrompts(caller.id, prompts);
  })();
}
