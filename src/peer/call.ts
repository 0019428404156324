import { existsSync } from "node:fs";
import { RelayError } from "../core/errors.ts";
import type { SessionRow } from "../sessions/types.ts";
import type { ClientRow, RemoteCallerRow } from "../pairing/store.ts";
import type { CallBody } from "../pairing/peer-protocol.ts";
import { MAX_HOPS } from "../pairing/origin.ts";
import { actionByName } from "../actions/registry.ts";
import { callRelayTool } from "../actions/dispatch.ts";
import { nothingDone } from "../actions/target.ts";
import type { ActionServices } from "../actions/services.ts";
import type { RemoteContext } from "../actions/remote-context.ts";
import { endedTurnUsage } from "../budgets/turn-usage.ts";
import type { ReportedUsage } from "../budgets/budgets.ts";

// A relay_tool call from a conversation on a paired relay, executed here under this relay's
// own rules (contract §5.6): Accept prompts, hop limits, and then the action's own checks
// (the 4-working limit, who started what, loop protection) with a stand-in caller that
// stands for the remote conversation. Cards are the calling relay's to show: a call that
// needs one stops before writing anything and answers `approvalNeeded`
// (actions/remote-approve.ts); the calling relay shows the card in the calling conversation
// and calls again with `approved`.

/** Actions another relay's agents cannot use while Accept prompts is off here (seed §7.1). */
function changesOrWatches(action: string, args: Record<string, unknown>): boolean {
  if (action === "ask") return args.session !== undefined;
  return [
    "send",
    "create_session",
    "update_session",
    "answer_question",
    "stop",
    "archive",
    "subscribe",
    "transfer_subscriptions",
    "schedule",
    "unschedule",
  ].includes(action);
}

/** Prompts, which the hop limit counts (a schedule is a prompt later). */
const PROMPTS = new Set(["send", "create_session", "schedule"]);

/** `turn`: this relay's id of the turn a send/create_session/wait is about, so the calling
 * relay can tell that turn's turn_end from others (no echo, relay_tool.md §9). */
export type PeerCallAnswer =
  | { result: Record<string, unknown>; turn?: string; usage?: ReportedUsage }
  | { approvalNeeded: NonNullable<RemoteContext["approvalNeeded"]> };

export async function executeRemote(
  services: ActionServices,
  client: ClientRow,
  body: CallBody,
  signal: AbortSignal,
): Promise<PeerCallAnswer> {
  const { identity, settings, pairing } = services;
  const def = actionByName(body.action);
  const args = body.args;
  const tail = nothingDone(body.action);
  const refuse = (e: RelayError): PeerCallAnswer => ({ result: e.toJSON() });

  if (def?.name === "ask" && args.session === undefined) {
    return refuse(
      new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `ask on a paired relay needs session: a session there to ask about. Questions about your own conversation are asked on your own relay (leave out relay). Nothing was asked.`,
      ),
    );
  }
  if (def && changesOrWatches(def.name, args) && !settings.get().acceptPromptsFromOtherRelays) {
    return refuse(
      new RelayError(
        "REMOTE_RELAY_PERMISSION",
        `Relay "${identity.name}" does not accept prompts from other relays' agents ("Accept prompts from other relays' agents" is off there): ${def.name} is refused; listing and reading still work. ${tail}`,
      ),
    );
  }
  if (def && (PROMPTS.has(def.name) || (def.name === "ask" && args.session !== undefined))) {
    const o = body.origin;
    const self = [identity.name.toLowerCase()];
    if (o.relays.length >= MAX_HOPS && !o.ownerUnlocked.some((n) => self.includes(n.toLowerCase()))) {
      return refuse(
        new RelayError(
          "REMOTE_RELAY_HOP_LIMIT",
          `This prompt has already crossed ${o.relays.length} relays (${o.relays.join(" → ")}); it is not passed on to relay "${identity.name}" unless the owner unlocked "${identity.name}" in the conversation it started from. ${tail}`,
        ),
      );
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
    const answer = await runAs(services, client, rc, body, signal);
    refused = "approvalNeeded" in answer || answer.result.ok === false;
    return answer;
  } finally {
    pairing.standIns.leave(rc, refused);
  }
}

/** The call itself, with the stand-in as the caller. */
async function runAs(
  services: ActionServices,
  client: ClientRow,
  rc: RemoteCallerRow,
  body: CallBody,
  signal: AbortSignal,
): Promise<PeerCallAnswer> {
  const { identity, clock, pairing, approvals, sessions } = services;
  const c = body.caller;
  pairing.standIns.ownerSpoke(rc, c.loopEpoch, (id) => approvals.resetLoop(id));
  const now = clock.now();
  const caller: SessionRow = {
    id: rc.id,
    title: c.title || "Untitled",
    provider: c.provider,
    model: c.model,
    effort: c.effort,
    mode: c.mode,
    // What the agent leaves out follows its own session "as far as the target relay offers it".
    cwd: existsSync(c.cwd) ? c.cwd : identity.defaultCwd,
    repo: null,
    branch: null,
    agent_token: "",
    via_session: c.startedByAgent ? `remote:${client.name}` : null,
    may_create_sessions: c.mayCreateSessions ? 1 : 0,
    group_id: null,
    acp_session_id: null,
    extra_json: "{}",
    message_count: 0,
    created_at: rc.created_at,
    last_activity_at: now,
    archived_at: null,
    deleted_at: null,
  };
  const remote: RemoteContext = {
    relay: client.name,
    session: c.session,
    origin: body.origin,
    approved: !!body.approved,
    heldElsewhere: c.heldElsewhere ?? 0,
  };
  // The dispatcher gives the handlers `approve` for this remote call (actions/remote-approve.ts).
  const result = await callRelayTool(
    services,
    caller,
    { ...body.args, action: body.action, relay: "this" },
    { signal, remote },
  );
  if (remote.approvalNeeded) return { approvalNeeded: remote.approvalNeeded };
  // Seed §6: an agent of that relay wrote into a conversation here, so it opens there.
  if (result.ok && body.action === "send" && typeof result.session === "string")
    pairing.agentWrote(result.session, client.name);
  const turn =
    result.ok !== false && typeof result.message_id === "string"
      ? sessions.turnByMessage(result.message_id)?.id
      : undefined;
  if (!turn) return { result };
  // A finished turn's usage goes back: the calling relay counts it for its group's budgets.
  const usage = endedTurnUsage(sessions, turn);
  return usage ? { result, turn, usage } : { result, turn };
}
