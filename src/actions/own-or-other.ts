import { RelayError } from "../core/errors.ts";
import { fromJson } from "../store/db.ts";
import type { SessionRow } from "../sessions/types.ts";
import type { ActionContext } from "./types.ts";

/** Schedules are kept by the relay the agent runs on (seed §10): a paired relay's name is
 * refused with UNSUPPORTED, before dispatch would look the name up. */
export const SCHEDULES_THIS_RELAY_ONLY = "Schedules work only on this relay: they are kept by the relay the agent runs on. Leave out relay or use \"this\".";

/** The session a schedule or ask names, or the caller when it names none (or itself). */
export function ownOrOtherSession(ctx: ActionContext, id: unknown, nothing: string): SessionRow {
  if (id === undefined || id === ctx.caller.id) return ctx.caller;
  const s = ctx.relay.sessions.get(String(id));
  if (!s) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No session "${String(id).slice(0, 80)}" on relay "${ctx.relayName}" (list_sessions shows the sessions there). ${nothing}`);
  if (s.archived_at) throw new RelayError("REMOTE_RELAY_ARCHIVED", `Session "${s.title}" (${s.id}) is archived. ${nothing}`);
  return s;
}

/** The origin (hop chain) of the turn the caller is running, carried into what it sets up. */
export function callerOrigin(ctx: ActionContext): unknown {
  // A call from a paired relay carries its chain; its stand-in runs no turn here.
  if (ctx.remote) return ctx.remote.origin;
  const running = ctx.relay.sessions.activeTurns(ctx.caller.id).find((t) => t.status === "running");
  return fromJson(running?.origin_json ?? null, null);
}
