// subscribe's checks that need the store or the relay's version (seed §9), after its arguments
// parsed (subscribe-args.ts) and before any card: every refusal says what was wrong and that
// nothing was subscribed.
import { RelayError } from "../core/errors.ts";
import type { SessionRow } from "../sessions/types.ts";
import { quietLabel } from "./quiet-hours.ts";
import { DEFAULT_STALLED_MINUTES, EVENT_SINCE } from "./types.ts";
import type { NewSub } from "./subscriptions.ts";
import { versionLess } from "../core/versions.ts";
import { NOTHING, parseSubscribeArgs, type SubscribeArgs } from "./subscribe-args.ts";

export { NOTHING };
const invalid = (msg: string) => new RelayError("REMOTE_RELAY_INVALID_INPUT", `${msg} ${NOTHING}`);

export interface Checked {
  sub: NewSub;
  /** The sessions it names, for the result and the card. */
  sessions: SessionRow[];
  /** What the approval card says about it. */
  details: string[];
}

/** What the checks read: the relay's name and version and the sessions named. */
export interface CheckDeps {
  name: string;
  version: string;
  sessions: { get(id: string): SessionRow | undefined };
}

/** The owner's body (api/subscriptions-owner.ts): parsed, then checked. */
export function checkSubscribe(d: CheckDeps, caller: Pick<SessionRow, "id">, raw: Record<string, unknown>): Checked {
  return checkSubscription(d, caller, parseSubscribeArgs(raw));
}

export function checkSubscription(d: CheckDeps, caller: Pick<SessionRow, "id">, args: SubscribeArgs): Checked {
  const old = (since: string, what: string) => {
    if (versionLess(d.version, since))
      throw new RelayError(
        "REMOTE_RELAY_UNSUPPORTED",
        `${what} needs OAR ${since} or newer; relay "${d.name}" runs ${d.version}. ${NOTHING}`,
      );
  };
  const all = args.sessions.includes("all");
  if (args.exclude !== undefined) {
    if (!all) throw invalid('exclude goes with sessions ["all"] only; a list of sessions names what it watches.');
    old("0.9.16", "exclude");
  }
  const sessions: SessionRow[] = [];
  for (const id of all ? [] : args.sessions) {
    const s = d.sessions.get(id);
    if (!s)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No session "${id.slice(0, 80)}" on relay "${d.name}" (list_sessions shows the sessions there). ${NOTHING}`,
      );
    if (s.id === caller.id)
      throw new RelayError(
        "REMOTE_RELAY_FORBIDDEN",
        `An agent's own conversation is never watched: leave out ${caller.id}. ${NOTHING}`,
      );
    if (s.archived_at)
      throw new RelayError("REMOTE_RELAY_ARCHIVED", `Session "${s.title}" (${s.id}) is archived. ${NOTHING}`);
    sessions.push(s);
  }
  const excluded = args.exclude ?? [];
  for (const id of excluded) {
    if (!d.sessions.get(id))
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No session "${id.slice(0, 80)}" on relay "${d.name}" to exclude (list_sessions shows the sessions there). ${NOTHING}`,
      );
  }
  const events = args.events ?? null;
  for (const e of events ?? []) if (EVENT_SINCE[e]) old(EVENT_SINCE[e]!, `The event ${e}`);

  const either = <A extends keyof SubscribeArgs, B extends keyof SubscribeArgs>(a: A, b: B) => {
    if (args[a] !== undefined && args[b] !== undefined && (args[a] as unknown) !== args[b])
      throw invalid(`${a} and ${b} are the same setting; give one.`);
    return args[a] ?? args[b];
  };
  const stalled = either("stalled_minutes", "stalledMinutes") ?? DEFAULT_STALLED_MINUTES;
  const heartbeat = either("heartbeat_minutes", "heartbeatMinutes") ?? null;
  const digest = args.digest_minutes ?? null;
  if (digest) old("0.9.16", "digest_minutes");
  const quiet = args.quiet_hours ?? null;
  if (quiet) old("0.9.16", "quiet_hours");
  const match = args.match ?? null;
  const once = args.once === true;

  const details = [
    all
      ? `Sessions: all on relay "${d.name}"`
      : `Sessions: ${sessions.map((s) => `"${s.title}" (${s.id})`).join(", ")}`,
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
      watcher: caller.id,
      all,
      sessions: sessions.map((s) => s.id),
      exclude: excluded,
      events,
      once,
      match,
      stalledMinutes: stalled,
      heartbeatMinutes: heartbeat,
      digestMinutes: digest,
      quiet,
    },
  };
}
