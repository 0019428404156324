import type { z } from "zod";
import type { SessionRow } from "../sessions/types.ts";
import type { Gate } from "../approvals/gate.ts";
import type { Level } from "../pairing/levels.ts";
import type { RemoteContext } from "./remote-context.ts";
import type { ActionServices } from "./services.ts";

/** Agents-may levels (contract §5.2), pairing/levels.ts; `none` = needs no level (list_relays). */
export type { Level };

/** What a handler gets: the relay's services (services.ts) and this call's own facts. */
export type ActionContext = ActionServices & CallInfo;

export interface CallInfo {
  /** The calling conversation. */
  caller: SessionRow;
  /** The relay name the call acts on, as results show it. */
  relayName: string;
  signal: AbortSignal;
  /** MCP progress while a call blocks (keeps the client's request alive). */
  progress: (message: string) => void;
  /** Asks the owner with an approval card when a rule says so (contract §5.3) and returns
   * once the call may go on; throws PERMISSION / APPROVAL_TIMEOUT / NO_ACTIVE_TURN. Call it
   * after the action's own checks and before its first write. `action`, `relay`, `write`
   * (the ask/plan write card) and the refusal tail come from the registry entry; pass what
   * only the handler knows: target, details, once, always, prompts, billing. */
  approve: (gate?: ApproveGate) => Promise<void>;
  /** Set when a conversation on a paired relay makes the call (peer/call.ts);
   * `caller` is then its stand-in here. */
  remote?: RemoteContext;
}

export type ApproveGate = Omit<Gate, "action" | "relay" | "write"> & Partial<Pick<Gate, "write">>;

export type Args = Record<string, unknown>;
export type Result = Record<string, unknown> & { summary: string };

/** One relay_tool action: the registry is the single list that tools/list, the
 * ignored/INVALID_INPUT rules, approval cards and permission levels all read. */
export interface ActionDef {
  name: string;
  /** OAR version the action appeared in; an older emulated relay refuses it. */
  since: string;
  /** Writes need a card in ask/plan mode (contract §4.3). */
  write: boolean;
  level: Level;
  /** The arguments it takes besides `action`; each a schema with its description. */
  args: Record<string, z.ZodType>;
  /** create_session/update_session refuse any other argument instead of listing it in `ignored`. */
  strictArgs?: boolean;
  /** Arguments refused with their own sentence instead of the strict list (update_session's mayCreateSessions). */
  refusedArgs?: Record<string, string>;
  /** The tail of this action's refusals ("Nothing was sent."): defineAction (define.ts). */
  nothing?: string;
  /** Arguments the call cannot go without, each with what it is, checked in this order after
   * every argument parsed and before the handler runs (define.ts). */
  required?: Record<string, string>;
  /** `relay` may be omitted and then means "this". */
  relayOptional?: boolean;
  /** Works without the agent-sessions setting (list_relays; own questions). */
  noSettingNeeded?: boolean;
  /** Kept by this relay only (schedules): any other relay name is refused with UNSUPPORTED and this text. */
  thisRelayOnly?: string;
  handler(ctx: ActionContext, args: Args): Promise<Result> | Result;
}
