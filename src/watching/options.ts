// subscribe's arguments checked before any card (seed §9): every refusal says what was
// wrong and that nothing was subscribed.
import { RelayError } from "../core/errors.ts";
import type { Relay } from "../relay.ts";
import type { SessionRow } from "../sessions/types.ts";
import { parseQuietHours, quietLabel } from "./quiet-hours.ts";
import { DEFAULT_STALLED_MINUTES, EVENT_SINCE, EVENT_TYPES, type EventType } from "./types.ts";
import type { NewSub } from "./subscriptions.ts";
import { versionLess } from "../core/versions.ts";

export const NOTHING = "Nothing was subscribed.";
const invalid = (msg: string) => new RelayError("REMOTE_RELAY_INVALID_INPUT", `${msg} ${NOTHING}`);

export interface Checked {
  sub: NewSub;
  /** The sessions it names, for the result and the card. */
  sessions: SessionRow[];
  /** What the approval card says about it. */
  details: string[];
}

/** What the checks read: the relay's name and version and the sessions named. */
export type CheckDeps = Pick<Relay, "name" | "version"> & { sessions: { get(id: string): SessionRow | undefined } };

export function checkSubscribe(relay: CheckDeps, caller: Pick<SessionRow, "id">, args: Record<string, unknown>): Checked {
  const old = (since: string, what: string) => {
    if (versionLess(relay.version, since)) throw new RelayError("REMOTE_RELAY_UNSUPPORTED", `${what} needs OAR ${since} or newer; relay "${relay.name}" runs ${relay.version}. ${NOTHING}`);
  };
  const raw = args.sessions;
  if (!Array.isArray(raw) || !raw.length || raw.some((s) => typeof s !== "string" || !s)) {
    throw invalid('subscribe needs sessions: a list of session ids (from list_sessions), or ["all"].');
  }
  const ids = [...new Set(raw as string[])];
  const all = ids.includes("all");
  if (all && ids.length > 1) throw invalid('sessions ["all"] watches every session; name "all" alone, and leave sessions out with exclude.');
  const exclude = args.exclude as unknown;
  if (exclude !== undefined) {
    if (!all) throw invalid('exclude goes with sessions ["all"] only; a list of sessions names what it watches.');
    old("0.9.16", "exclude");
    if (!Array.isArray(exclude) || exclude.some((s) => typeof s !== "string" || !s)) throw invalid("exclude must be a list of session ids.");
  }
  const sessions: SessionRow[] = [];
  for (const id of all ? [] : ids) {
    const s = relay.sessions.get(id);
    if (!s) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No session "${id.slice(0, 80)}" on relay "${relay.name}" (list_sessions shows the sessions there). ${NOTHING}`);
    if (s.id === caller.id) throw new RelayError("REMOTE_RELAY_FORBIDDEN", `An agent's own conversation is never watched: leave out ${caller.id}. ${NOTHING}`);
    if (s.archived_at) throw new RelayError("REMOTE_RELAY_ARCHIVED", `Session "${s.title}" (${s.id}) is archived. ${NOTHING}`);
    sessions.push(s);
  }
  const excluded = [...new Set((exclude as string[] | undefined) ?? [])];
  for (const id of excluded) {
    if (!relay.sessions.get(id)) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No session "${id.slice(0, 80)}" on relay "${relay.name}" to exclude (list_sessions shows the sessions there). ${NOTHING}`);
  }

  let events: EventType[] | null = null;
  if (args.events !== undefined) {
    const list = args.events;
    if (!Array.isArray(list) || list.some((e) => typeof e !== "string")) throw invalid(`events must be a list of event names: ${EVENT_TYPES.join(", ")}.`);
    const unknown = list.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
    if (unknown.length) throw invalid(`Unknown event${unknown.length > 1 ? "s" : ""} ${unknown.slice(0, 5).map((e) => JSON.stringify(String(e).slice(0, 40))).join(", ")}. Events: ${EVENT_TYPES.join(", ")}.`);
    events = [...new Set(list as EventType[])];
    for (const e of events) if (EVENT_SINCE[e]) old(EVENT_SINCE[e]!, `The event ${e}`);
  }

  const minutes = (name: string, v: unknown, max: number): number | null => {
    if (v === undefined) return null;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > max) throw invalid(`${name} must be a whole number of minutes from 1 to ${max} (got ${JSON.stringify(v)?.slice(0, 40)}).`);
    return v;
  };
  const either = (a: string, b: string) => {
    if (args[a] !== undefined && args[b] !== undefined && args[a] !== args[b]) throw invalid(`${a} and ${b} are the same setting; give one.`);
    return args[a] ?? args[b];
  };
  const stalled = minutes("stalled_minutes", either("stalled_minutes", "stalledMinutes"), 1440) ?? DEFAULT_STALLED_MINUTES;
  const heartbeat = minutes("heartbeat_minutes", either("heartbeat_minutes", "heartbeatMinutes"), 1440);
  const digest = minutes("digest_minutes", args.digest_minutes, 1440);
  if (digest) old("0.9.16", "digest_minutes");
  const quiet = parseQuietHours(args.quiet_hours);
  if (quiet) old("0.9.16", "quiet_hours");
  let match: string | null = null;
  if (args.match !== undefined) {
    if (typeof args.match !== "string" || !args.match.trim() || args.match.length > 200) throw invalid("match must be text (at most 200 characters) that an event's line contains.");
    match = args.match.trim();
  }
  const once = args.once === true;

  const details = [
    all ? `Sessions: all on relay "${relay.name}"` : `Sessions: ${sessions.map((s) => `"${s.title}" (${s.id})`).join(", ")}`,
    `Events: ${events ? events.join(", ") : "default"}`,
    ...(once ? ["once"] : []),
    ...(match ? [`match "${match}"`] : []),
    ...(heartbeat ? [`heartbeat every ${heartbeat} min`] : []),
    ...(digest ? [`digest every ${digest} min`] : []),
    ...(quiet ? [`quiet ${quietLabel(quiet)}`] : []),
    ...(excluded.length ? [`except ${excluded.length} it leaves out`] : []),
  ];
  return {
    sessions,
    details,
    sub: {
      watcher: caller.id, all, sessions: sessions.map((s) => s.id), exclude: excluded, events, once, match,
      stalledMinutes: stalled, heartbeatMinutes: heartbeat, digestMinutes: digest, quiet,
    },
  };
}
