import { RelayError } from "../core/errors.ts";
import { Effort, Mode, type SessionRow } from "../sessions/types.ts";
import { ACTIONS, actionByName } from "./registry.ts";
import type { ActionDef, ApproveGate, Args } from "./types.ts";
import type { ActionServices } from "./services.ts";
import { nothingDone } from "./target.ts";
import type { RemoteContext } from "./remote-context.ts";
import { forwardCall } from "./forward.ts";
import { isEmpty } from "./input.ts";
import { remoteApprove } from "./remote-approve.ts";
import { refusalWords } from "../core/refusals.ts";

const MAX_IGNORED = 20;

function versionLess(a: string, b: string): boolean {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) < (pb[i] ?? 0);
  return false;
}

export interface CallOptions {
  signal?: AbortSignal;
  progress?: (message: string) => void;
  /** The tool name used (relay_tool or the old remote_relay). */
  tool?: string;
  /** The call comes from a conversation on a paired relay (peer/call.ts). */
  remote?: RemoteContext;
}

/** Runs one relay_tool call for a conversation and returns the JSON result. Never throws:
 * every refusal becomes `{ ok: false, code, error }`. */
export async function callRelayTool(
  services: ActionServices,
  caller: SessionRow,
  raw: unknown,
  opts: CallOptions = {},
): Promise<Record<string, unknown>> {
  try {
    return await run(services, caller, raw, opts);
  } catch (err) {
    if (err instanceof RelayError) return err.toJSON();
    console.error("[relay_tool] unexpected failure:", err);
    return {
      ok: false,
      code: "REMOTE_RELAY_BUSY",
      error: `The relay could not carry out the call (${(err as Error)?.message ?? err}). Try again.`,
    };
  }
}

async function run(
  services: ActionServices,
  caller: SessionRow,
  raw: unknown,
  opts: CallOptions,
): Promise<Record<string, unknown>> {
  const { identity, settings, approvals } = services;
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      "The arguments must be a JSON object with an action. Nothing was done.",
    );
  }
  const input = raw as Args;
  if (typeof input.action !== "string" || !input.action.trim()) {
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `Every call names an action. Actions: ${ACTIONS.map((a) => a.name).join(", ")}. Nothing was done.`,
    );
  }
  const def = actionByName(input.action.trim());
  if (!def) {
    throw new RelayError(
      "REMOTE_RELAY_UNKNOWN_ACTION",
      `Unknown action "${String(input.action).slice(0, 60)}". Actions: ${ACTIONS.map((a) => a.name).join(", ")}. Nothing was done.`,
    );
  }
  // A paired relay executes the call under its own rules (forward.ts).
  const paired =
    !opts.remote && def.name !== "list_relays" && !def.thisRelayOnly ? pairedRelay(services, input.relay) : undefined;
  if (paired)
    return forwardCall(services, caller, def, input, paired, { signal: opts.signal ?? new AbortController().signal });
  if (versionLess(identity.version, def.since)) {
    throw new RelayError(
      "REMOTE_RELAY_UNSUPPORTED",
      `${def.name} needs OAR ${def.since} or newer; relay "${identity.name}" runs ${identity.version}. Nothing was done.`,
    );
  }

  // Split what the action takes from what it does not.
  const args: Args = {};
  const extra: string[] = [];
  for (const [k, v] of Object.entries(input)) {
    if (k === "action" || isEmpty(v)) continue;
    if (k === "relay" && def.name !== "list_relays") args.relay = v;
    // Own keys only: `constructor`, `hasOwnProperty` or `__proto__` are no argument of any action.
    else if (Object.hasOwn(def.args, k)) args[k] = v;
    else extra.push(k);
  }
  const refused = extra.find((k) => def.refusedArgs && Object.hasOwn(def.refusedArgs, k));
  if (refused)
    throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `${def.refusedArgs![refused]} ${nothingDone(def.name)}`);
  if (extra.length && def.strictArgs) {
    const own = ["relay", ...Object.keys(def.args)].join(", ");
    const tail = def.name === "create_session" ? "Nothing was created." : "Nothing was changed.";
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `${def.name} does not take: ${extra.join(", ")}. Its arguments: ${own}. ${tail}`,
      { arguments: ["relay", ...Object.keys(def.args)] },
    );
  }

  const relayName = resolveRelay(services, def, args.relay);
  // contract §8: serving another relay's agent needs no agentSessions here; levels and Accept prompts decide.
  if (!opts.remote && !def.noSettingNeeded && !settings.get().agentSessions) {
    throw new RelayError(
      "REMOTE_RELAY_DISABLED",
      `Agents may not start or use sessions on relay "${identity.name}": the owner has not switched on "Agents may start and use sessions on this relay". Nothing was done.`,
    );
  }

  for (const [k, schema] of Object.entries(def.args)) {
    if (!Object.hasOwn(args, k)) continue;
    const parsed = schema.safeParse(args[k]);
    if (!parsed.success)
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `${refusalWords(schema, args[k], parsed.error) ?? `${def.name}: ${describeBad(k, args[k], parsed.error.issues[0]?.message ?? "")}.`} ${nothingDone(def.name)}`,
      );
    args[k] = parsed.data;
  }
  for (const [k, what] of Object.entries(def.required ?? {})) {
    if (!Object.hasOwn(args, k)) throw new RelayError("REMOTE_RELAY_INVALID_INPUT", needs(def, k, what));
  }

  const signal = opts.signal ?? new AbortController().signal;
  // Cards read the registry: a write declared there gets the ask/plan card from approve().
  // A call from a paired relay: this relay's rules decide, the card is that relay's to show.
  const { remote } = opts;
  const approve = async (gate: ApproveGate = {}) => {
    const g = {
      action: def.name,
      relay: relayName,
      write: def.write,
      nothing: def.nothing ?? nothingDone(def.name),
      ...gate,
    };
    return remote ? remoteApprove(services, remote, caller, g) : approvals.require(caller, g, signal);
  };
  const result = await def.handler(
    {
      ...services,
      caller,
      relayName,
      signal,
      progress: opts.progress ?? (() => {}),
      approve,
      ...(opts.remote ? { remote: opts.remote } : {}),
    },
    args,
  );
  const out: Record<string, unknown> = { ok: true, relay: relayName, ...result };
  if (extra.length) out.ignored = extra.slice(0, MAX_IGNORED);
  return out;
}

function pairedRelay({ identity, pairing }: ActionServices, value: unknown) {
  if (typeof value !== "string" || !value.trim() || identity.isSelf(value)) return undefined;
  return pairing.find(value);
}

function resolveRelay({ identity, pairing }: ActionServices, def: ActionDef, value: unknown): string {
  const self = identity.name;
  if (def.name === "list_relays") return self;
  if (value === undefined) {
    if (def.relayOptional) return self;
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `${def.name} needs relay: "this" for the relay you run on, or a paired relay's name (see list_relays). Nothing was done.`,
    );
  }
  if (typeof value !== "string")
    throw new RelayError("REMOTE_RELAY_INVALID_INPUT", `relay must be a relay name as text. Nothing was done.`);
  if (identity.isSelf(value)) return self;
  if (def.thisRelayOnly) throw new RelayError("REMOTE_RELAY_UNSUPPORTED", `${def.thisRelayOnly} Nothing was done.`);
  const names = pairing.store.relays().map((r) => r.name);
  const paired = names.length
    ? `this relay ("${self}") is paired with ${names.map((n) => `"${n}"`).join(", ")}`
    : `this relay ("${self}") is paired with no other relay`;
  throw new RelayError(
    "REMOTE_RELAY_NOT_FOUND",
    `No paired relay named "${value.slice(0, 100)}": ${paired}. Use "this" for the relay you run on, or list_relays. Nothing was done.`,
  );
}

/** `send needs text: the prompt to queue. Nothing was sent.`; a `what` in brackets follows the
 * name directly: `unschedule needs schedule_id (see list_schedules). Nothing was unscheduled.` */
function needs(def: ActionDef, name: string, what: string): string {
  return `${def.name} needs ${name}${what.startsWith("(") ? " " : ": "}${what}. ${def.nothing ?? nothingDone(def.name)}`;
}

function describeBad(name: string, value: unknown, zodMessage: string): string {
  const got = Array.isArray(value) ? "a list" : value === null ? "null" : typeof value;
  const shown = got === "number" ? String(value) : got;
  if (name === "wait_seconds") return `wait_seconds must be a number of seconds, 0 or more (got ${shown})`;
  if (name === "lines" || name === "last") return `${name} must be a whole number, 1 or more (got ${shown})`;
  if (name === "mode") return `mode must be ${oneOf(Mode.options)} (got ${JSON.stringify(value)?.slice(0, 40)})`;
  if (name === "effort") return `effort must be ${oneOf(Effort.options)} (got ${JSON.stringify(value)?.slice(0, 40)})`;
  if (name === "limit") return `limit must be a whole number from 1 to 200 (got ${shown})`;
  if (name === "state")
    return `state must be "running_turn", "background_only" or "idle" (got ${JSON.stringify(value)?.slice(0, 40)})`;
  if (name === "scope") return `scope must be "active" or "all" (got ${JSON.stringify(value)?.slice(0, 40)})`;
  return `${name} is not valid (${zodMessage || `got ${got}`})`;
}

/** `"a", "b" or "c"` */
function oneOf(values: readonly string[]): string {
  const q = values.map((v) => JSON.stringify(v));
  return q.length > 1 ? `${q.slice(0, -1).join(", ")} or ${q[q.length - 1]}` : q.join("");
}
