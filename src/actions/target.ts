import { RelayError } from "../core/errors.ts";
import type { SessionRow } from "../sessions/types.ts";
import type { ActionContext } from "./types.ts";

const VERB: Record<string, string> = {
  send: "send to",
  wait: "wait on",
  stop: "stop",
  archive: "archive",
  update_session: "change the settings of",
  answer_question: "answer the questions of",
  subscribe: "watch",
};

// The tail of the refusals the dispatcher and targetSession give, per action (an action's own
// `nothing`, define.ts, ends only its `required` refusals: for withdraw the two differ).
const NOTHING: Record<string, string> = {
  send: "Nothing was sent.",
  create_session: "Nothing was created.",
  update_session: "Nothing was changed.",
  stop: "Nothing was stopped.",
  archive: "Nothing was archived.",
  wait: "Nothing was waited for.",
  answer_question: "Nothing was answered.",
  subscribe: "Nothing was subscribed.",
  schedule: "Nothing was scheduled.",
  unschedule: "Nothing was unscheduled.",
};

export const nothingDone = (action: string): string => NOTHING[action] ?? "Nothing was done.";

type Lookup = Pick<ActionContext, "sessions" | "relayName" | "caller">;

/** Looks up the session a call names, with the refusals every action shares. */
export function targetSession(
  { sessions, relayName, caller }: Lookup,
  action: string,
  id: string | undefined,
  opts: { notSelf?: boolean; notArchived?: boolean } = {},
): SessionRow {
  if (!id) {
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `${action} needs session: a session id from list_sessions. ${nothingDone(action)}`,
    );
  }
  const s = sessions.get(id);
  if (!s) {
    throw new RelayError(
      "REMOTE_RELAY_NOT_FOUND",
      `No session "${id.slice(0, 80)}" on relay "${relayName}" (list_sessions shows the sessions there). ${nothingDone(action)}`,
    );
  }
  if (opts.notSelf && s.id === caller.id) {
    throw new RelayError(
      "REMOTE_RELAY_FORBIDDEN",
      `An agent cannot ${VERB[action] ?? action} the conversation it runs in. ${nothingDone(action)}`,
    );
  }
  if (opts.notArchived && s.archived_at) {
    throw new RelayError("REMOTE_RELAY_ARCHIVED", `Session "${s.title}" (${s.id}) is archived. ${nothingDone(action)}`);
  }
  return s;
}

export const MAX_WORKING = 4;

/** contract §6: at most 4 sessions started by one conversation may have a queued or running turn. */
export function checkWorkingLimit(
  { sessions, sessionReads, caller }: Pick<ActionContext, "sessions" | "sessionReads" | "caller">,
  action: string,
  target: SessionRow | null,
): void {
  if (target && target.via_session !== caller.id) return;
  const busy = sessions.busySessions();
  if (target && busy.has(target.id)) return;
  const working = sessionReads.startedBy(caller.id).filter((s) => busy.has(s.id));
  if (working.length >= MAX_WORKING) {
    throw new RelayError(
      "REMOTE_RELAY_LIMIT",
      `This conversation already has ${working.length} sessions it started working (at most ${MAX_WORKING} may have a queued or running turn): ${working.map((s) => `"${s.title}" (${s.id})`).join(", ")}. Wait for one to finish. ${nothingDone(action)}`,
      { working: working.map((s) => s.id) },
    );
  }
}

type Asker = Pick<ActionContext, "caller" | "remote">;

/** The first line of a prompt from an agent on this relay (contract §4.5). */
export function agentPromptText({ caller, remote }: Asker, text: string): string {
  // seed §7.4: a prompt from an agent on a paired relay names that relay.
  if (remote)
    return `[Remote prompt from an agent on relay "${remote.relay}" · session "${caller.title}" · ${caller.model} · acting for the user]\n${text}`;
  return `[Prompt from an agent on this relay · session "${caller.title}" · ${caller.model} · acting for the user]\n${text}`;
}

export function fromInfo({ caller, remote, identity }: Asker & Pick<ActionContext, "identity">) {
  if (remote) return { relay: remote.relay, session: remote.session, title: caller.title, model: caller.model };
  return { relay: identity.name, session: caller.id, title: caller.title, model: caller.model };
}

/** How an agent's prompt is stored: role `remote` from another relay's agent (no "reply
 * ready" notification for its turn, seed §7.4), and the origin chain it carries (§5.5). */
export function promptKind({ caller, remote, pairing }: Asker & Pick<ActionContext, "pairing">): {
  role: "user" | "remote";
  origin: unknown;
} {
  if (remote) return { role: "remote", origin: remote.origin };
  return { role: "user", origin: pairing.originOf(caller) };
}
