import { RelayError } from "../core/errors.ts";
import type { SessionRow } from "../sessions/types.ts";
import type { ActionContext } from "./types.ts";

const VERB: Record<string, string> = {
  send: "send to", wait: "wait on", stop: "stop", archive: "archive", update_session: "change the settings of",
  answer_question: "answer the questions of", subscribe: "watch",
};

const NOTHING: Record<string, string> = {
  send: "Nothing was sent.", create_session: "Nothing was created.", update_session: "Nothing was changed.",
  stop: "Nothing was stopped.", archive: "Nothing was archived.", wait: "Nothing was waited for.",
  answer_question: "Nothing was answered.", subscribe: "Nothing was subscribed.",
  schedule: "Nothing was scheduled.", unschedule: "Nothing was unscheduled.",
};

export const nothingDone = (action: string): string => NOTHING[action] ?? "Nothing was done.";

/** Looks up the session a call names, with the refusals every action shares. */
export function targetSession(
  ctx: ActionContext,
  action: string,
  id: unknown,
  opts: { notSelf?: boolean; notArchived?: boolean } = {},
): SessionRow {
  if (typeof id !== "string" || !id) {
    throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `${action} needs session: a session id from list_sessions. ${nothingDone(action)}`);
  }
  const s = ctx.relay.sessions.get(id);
  if (!s) {
    throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No session "${id.slice(0, 80)}" on relay "${ctx.relayName}" (list_sessions shows the sessions there). ${nothingDone(action)}`);
  }
  if (opts.notSelf && s.id === ctx.caller.id) {
    throw new RelayError("REMOTE_RELAY_FORBIDDEN", `An agent cannot ${VERB[action] ?? action} the conversation it runs in. ${nothingDone(action)}`);
  }
  if (opts.notArchived && s.archived_at) {
    throw new RelayError("REMOTE_RELAY_ARCHIVED", `Session "${s.title}" (${s.id}) is archived. ${nothingDone(action)}`);
  }
  return s;
}

export const MAX_WORKING = 4;

/** contract §6: at most 4 sessions started by one conversation may have a queued or running turn. */
export function checkWorkingLimit(ctx: ActionContext, action: string, target: SessionRow | null): void {
  if (target && target.via_session !== ctx.caller.id) return;
  const busy = ctx.relay.sessions.busySessions();
  if (target && busy.has(target.id)) return;
  const started = ctx.relay.db.prepare("SELECT id, title FROM sessions WHERE via_session = ? AND deleted_at IS NULL").all(ctx.caller.id) as { id: string; title: string }[];
  const working = started.filter((s) => busy.has(s.id));
  if (working.length >= MAX_WORKING) {
    throw new RelayError(
      "REMOTE_RELAY_LIMIT",
      `This conversation already has ${working.length} sessions it started working (at most ${MAX_WORKING} may have a queued or running turn): ${working.map((s) => `"${s.title}" (${s.id})`).join(", ")}. Wait for one to finish. ${nothingDone(action)}`,
      { working: working.map((s) => s.id) },
    );
  }
}

/** The first line of a prompt from an agent on this relay (contract §4.5). */
export function agentPromptText(ctx: ActionContext, text: string): string {
  // seed §7.4: a prompt from an agent on a paired relay names that relay.
  if (ctx.remote) return `[Remote prompt from an agent on relay "${ctx.remote.relay}" · session "${ctx.caller.title}" · ${ctx.caller.model} · acting for the user]\n${text}`;
  return `[Prompt from an agent on this relay · session "${ctx.caller.title}" · ${ctx.caller.model} · acting for the user]\n${text}`;
}

export function fromInfo(ctx: ActionContext) {
  if (ctx.remote) return { relay: ctx.remote.relay, session: ctx.remote.session, title: ctx.caller.title, model: ctx.caller.model };
  return { relay: ctx.relay.name, session: ctx.caller.id, title: ctx.caller.title, model: ctx.caller.model };
}

/** How an agent's prompt is stored: role `remote` from another relay's agent (no "reply
 * ready" notification for its turn, seed §7.4), and the origin chain it carries (§5.5). */
export function promptKind(ctx: ActionContext): { role: "user" | "remote"; origin: unknown } {
  if (ctx.remote) return { role: "remote", origin: ctx.remote.origin };
  return { role: "user", origin: ctx.relay.pairing.originOf(ctx.caller) };
}
