// subscribe's arguments as schemas (seed §9), each refused in its own words (contract
// wording, core/refusals.ts): relay_tool's dispatcher parses them before the handler runs, the
// owner's POST /api/subscriptions through parseSubscribeArgs. What needs the store or the
// relay's version is checked afterwards (options.ts).
import { z } from "zod";
import { RelayError } from "../core/errors.ts";
import { refusalWords, withWords } from "../core/refusals.ts";
import { QuietHoursArg } from "./quiet-hours.ts";
import { EVENT_TYPES } from "./types.ts";

export const NOTHING = "Nothing was subscribed.";

/** What `sessions` is, as "subscribe needs sessions: …" says when it is missing or malformed. */
export const SESSIONS_ARE = 'a list of session ids (from list_sessions), or ["all"]';

const unique = <T>(list: T[]) => [...new Set(list)];
const EVENTS = EVENT_TYPES.join(", ");

function eventWords(v: unknown): string {
  if (!Array.isArray(v) || v.some((e) => typeof e !== "string"))
    return `events must be a list of event names: ${EVENTS}.`;
  const unknown = v.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
  return `Unknown event${unknown.length > 1 ? "s" : ""} ${unknown
    .slice(0, 5)
    .map((e) => JSON.stringify(String(e).slice(0, 40)))
    .join(", ")}. Events: ${EVENTS}.`;
}

/** 1 to 1440 minutes; `name` is the setting as refusals name it (aliases say the snake_case one). */
const minutes = (name: string, what: string) =>
  withWords(
    z.number().int().min(1).max(1440).describe(what),
    (v) => `${name} must be a whole number of minutes from 1 to 1440 (got ${JSON.stringify(v)?.slice(0, 40)}).`,
  );

const ALL_ALONE = 'sessions ["all"] watches every session; name "all" alone, and leave sessions out with exclude.';

export const subscribeArgs = {
  sessions: withWords(
    z
      .array(z.string().min(1))
      .min(1)
      .transform(unique)
      .refine((ids) => !ids.includes("all") || ids.length === 1, { error: ALL_ALONE })
      .describe(
        'Session ids to watch, or ["all"] for every session on the relay (your own conversation is never watched).',
      ),
    (_, issues) => (issues[0]?.code === "custom" ? ALL_ALONE : `subscribe needs sessions: ${SESSIONS_ARE}.`),
  ),
  events: withWords(
    z
      .array(z.enum(EVENT_TYPES))
      .transform(unique)
      .describe(
        "Events to be woken by. Left out: question_asked, error, turn_end, subagent_finished, task_failed, stalled, all_idle, overlap.",
      ),
    eventWords,
  ),
  once: z.boolean().describe("End the subscription after its first event."),
  // The length is counted before trimming, as it always was.
  match: withWords(
    z.string().max(200).trim().min(1).describe("Only events whose line contains this text (case-insensitive)."),
    "match must be text (at most 200 characters) that an event's line contains.",
  ),
  stalled_minutes: minutes(
    "stalled_minutes",
    "stalled: a working session with no progress for this many minutes (default 15).",
  ),
  stalledMinutes: minutes("stalled_minutes", "Same as stalled_minutes."),
  heartbeat_minutes: minutes(
    "heartbeat_minutes",
    "A heartbeat event every this many minutes listing the watched sessions that work (none inside quiet hours).",
  ),
  heartbeatMinutes: minutes("heartbeat_minutes", "Same as heartbeat_minutes."),
  digest_minutes: minutes(
    "digest_minutes",
    "Gather this subscription's events into one message every N minutes (questions and errors still come at once).",
  ),
  quiet_hours: QuietHoursArg.describe(
    '{ "from": "23:00", "to": "06:00", "tz": "Europe/Berlin" }: what happens inside waits and comes as one message when the window ends (questions and errors still come at once).',
  ),
  exclude: withWords(
    z.array(z.string().min(1)).transform(unique).describe('With sessions ["all"] only: sessions to leave out.'),
    "exclude must be a list of session ids.",
  ),
};

type Schemas = typeof subscribeArgs;
/** subscribe's arguments once parsed: `sessions` always, the rest when given. */
export type SubscribeArgs = { [K in Exclude<keyof Schemas, "sessions">]?: z.output<Schemas[K]> } & {
  sessions: z.output<Schemas["sessions"]>;
};

const invalid = (words: string) => new RelayError("REMOTE_RELAY_INVALID_INPUT", `${words} ${NOTHING}`);

/** The owner's body (contract §10.5), parsed as relay_tool's dispatcher parses subscribe's
 * arguments, except that empty values are not dropped: `match: ""` is refused, `events: []`
 * kept. As before, a null quiet_hours is none and `once` is on only when it is `true`. */
export function parseSubscribeArgs(raw: Record<string, unknown>): SubscribeArgs {
  if (raw.sessions === undefined) throw invalid(`subscribe needs sessions: ${SESSIONS_ARE}.`);
  const out: Record<string, unknown> = {};
  for (const [k, schema] of Object.entries(subscribeArgs)) {
    const v = raw[k];
    if (v === undefined || k === "once" || (k === "quiet_hours" && v === null)) continue;
    const r = schema.safeParse(v);
    if (!r.success) throw invalid(refusalWords(schema, v, r.error) ?? `${k} is not valid.`);
    out[k] = r.data;
  }
  if (raw.once === true) out.once = true;
  return out as SubscribeArgs;
}
