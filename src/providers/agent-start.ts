import { iso } from "../core/clock.ts";
import { fromJson } from "../store/db.ts";
import type { SessionRow } from "../sessions/types.ts";

// The agent's own conversation behind a relay session (its ACP session id), kept in the
// session's row (`acp_session_id`, as JSON) so that it outlives the process, the keeper and
// the relay: a worker started again for the session (after a crash, a folder change, Kill
// session, an idle stop or an eviction at maxWorkers) continues that conversation when its
// agent offers ACP `session/resume` or `session/load` (contract §10.2 capabilities), and the
// session says how its agent last started (`agentStart`, docs/providers.md).

/** `new`: the session's first agent conversation. `resumed`: a new process continued the
 * earlier one. `fresh`: a new process began a blank one although there was an earlier one. */
export type StartHow = "new" | "resumed" | "fresh";

export interface AgentStart {
  how: StartHow;
  /** Why, for `resumed` (the call that did it) and `fresh` (what stood in the way). */
  note?: string;
}

interface Stored extends AgentStart {
  /** The agent's ACP session id. */
  id: string;
  provider: string;
  at: number;
}

function stored(s: Pick<SessionRow, "acp_session_id">): Stored | null {
  const r = fromJson<Partial<Stored> | null>(s.acp_session_id, null);
  return r && typeof r.id === "string" && r.id && typeof r.provider === "string" && typeof r.at === "number"
    ? (r as Stored)
    : null;
}

/** The earlier agent conversation a new worker for `s` may continue: the ACP session id, or
 * why there is none to continue (it belonged to another provider). */
export function earlierConversation(s: SessionRow): { id: string } | { note: string } | null {
  const r = stored(s);
  if (!r) return null;
  if (r.provider !== s.provider)
    return { note: `the earlier conversation was with ${r.provider}; the session now runs on ${s.provider}` };
  return { id: r.id };
}

/** What goes into the row once a worker's agent has its conversation. */
export function agentStartRecord(provider: string, acpSessionId: string, start: AgentStart, at: number): string {
  const r: Stored = { id: acpSessionId, provider, at, how: start.how, ...(start.note ? { note: start.note } : {}) };
  return JSON.stringify(r);
}

/** The stored record with `note` added to its own (what happened before the agent's first
 * prompt: relay_tool was not available); null when there is no record. */
export function withStartNote(s: Pick<SessionRow, "acp_session_id">, note: string): string | null {
  const r = stored(s);
  return r ? JSON.stringify({ ...r, note: r.note ? `${r.note}; ${note}` : note }) : null;
}

/** `agentStart` of GET /api/sessions/:id and read_session: how the session's agent process
 * last started, or null before its first. */
export function agentStartView(
  s: Pick<SessionRow, "acp_session_id">,
): { how: StartHow; at: string | null; note?: string } | null {
  const r = stored(s);
  return r ? { how: r.how, at: iso(r.at), ...(r.note ? { note: r.note } : {}) } : null;
}
