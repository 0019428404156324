import { RelayError } from "../core/errors.ts";
import { fromJson } from "../store/db.ts";
import type { SessionRow } from "../sessions/types.ts";
import type { ActionContext } from "./types.ts";

/** Schedules are kept by the relay the agent runs on (seed §10): a paired relay's name is
 * refused with UNSUPPORTED, before dispatch would look the name up. */
export const SCHEDULES_THIS_RELAY_ONLY =
  'Schedules work only on this relay: they are kept by the relay the agent runs on. Leave out relay or use "this".';

/** The session a schedule or ask names, or the caller when it names none (or itself). */
export function ownOrOtherSession(
  { sessions, caller, relayName }: Pick<ActionContext, "sessions" | "caller" | "relayName">,
  id: string | undefined,
  nothing: string,
): SessionRow {
  if (id === undefined || id === caller.id) return caller;
  const s = sessions.get(id);
  if (!s)
    throw new RelayError(
      "REMOTE_RELAY_NOT_FOUND",
      `No session "${id.slice(0, 80)}" on relay "${relayName}" (list_sessions shows the sessions there). ${nothing}`,
    );
  if (s.archived_at)
    throw new RelayError("REMOTE_RELAY_ARCHIVED", `Session "${s.title}" (${s.id}) is archived. ${nothing}`);
  return s;
}

/** The origin (hop chain) of the turn the caller is running, carried into what it sets up. */
export function callerOrigin({
  sessions,
  caller,
  remote,
}: Pick<ActionContext, "sessions" | "caller" | "remote">): unknown {
  // A call from a paired relay carries its chain; its stand-in runs no turn here.
  if (remote) return remote.origin;
  const running = sessions.activeTurns(caller.id).find((t) => t.status === "running");
  return fromJson(running?.origin_json ?? null, null);
}
