import { z } from "zod";
import { ERROR_CODES } from "../core/errors.ts";
import { Mode } from "../sessions/types.ts";

// The peer API's shapes (/peer/v1, ARCHITECTURE.md "Paired relays"). Every request carries
// `oar-version` (the caller's version, as it presents itself) and every answer too.

export const CallerIdentity = z.object({
  session: z.string().min(1).max(200),
  title: z.string().max(500),
  model: z.string().max(200),
  provider: z.string().max(100),
  effort: z.string().max(50).nullable(),
  mode: Mode,
  cwd: z.string().max(4096),
  /** The one-level rule (seed §7.3) travels with the caller. */
  startedByAgent: z.boolean(),
  mayCreateSessions: z.boolean(),
  /** The owner's last message in the conversation: a newer one resets the loop count there. */
  loopEpoch: z.number().int().min(0),
  /** Subscriptions the conversation holds elsewhere (its own relay, other paired relays):
   * they count toward its 20 here too (contract §6). Older relays leave it out. */
  heldElsewhere: z.number().int().min(0).max(1000).optional(),
});

export const CallBody = z.object({
  action: z.string().min(1).max(100),
  args: z.record(z.string(), z.unknown()),
  caller: CallerIdentity,
  origin: z.object({
    relays: z.array(z.string().max(200)).max(20),
    ownerUnlocked: z.array(z.string().max(300)).max(200),
  }),
  /** Relays unlocked in the calling conversation (owner or agent), as the caller knows them. */
  unlocked: z.array(z.string().max(300)).max(200),
  approved: z.boolean().optional(),
});
export type CallBody = z.infer<typeof CallBody>;

// ---- answers, parsed where they arrive (Pairing.call): a paired relay is another program,
// and an answer that does not fit is refused as no answer at all (REMOTE_RELAY_OFFLINE). ----

/** A card the called relay's rules ask for; the calling relay shows it (peer/call.ts). */
export const ApprovalNeeded = z.object({
  action: z.string().optional(),
  target: z.object({ id: z.string(), title: z.string() }).nullable().optional(),
  details: z.array(z.string()).optional(),
  /** What it approves, whole (contract §10.3): shown as the card's `detail`. */
  detail: z.string().optional(),
  billing: z.string().optional(),
  reasons: z.array(z.string()).optional(),
  write: z.boolean().optional(),
});
export type ApprovalNeeded = z.output<typeof ApprovalNeeded>;

/** What a finished turn's agent reported (budgets' `ReportedUsage`): the calling relay counts
 * it for the caller's group (contract §10.4). */
export const PeerUsage = z.object({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  cachedTokens: z.number().optional(),
  costUsd: z.number().optional(),
});
export type PeerUsage = z.output<typeof PeerUsage>;

/** POST /call: the result, with the id of the turn a send/create_session/wait is about
 * (no echo, relay_tool.md §9), or the card to show first. */
export const CallAnswer = z.union([
  z.object({ approvalNeeded: ApprovalNeeded }),
  z.object({
    result: z.record(z.string(), z.unknown()),
    turn: z.string().optional().catch(undefined),
    /** What a finished turn's agent reported: counted for the caller's group (budgets). */
    usage: PeerUsage.optional().catch(undefined),
  }),
]);
export type CallAnswer = z.output<typeof CallAnswer>;

/** An event for a watcher on the calling relay, as the watched relay kept it (outbox.ts). */
export const OutboxEvent = z.object({
  seq: z.number(),
  /** The watching conversation's id on its own relay. */
  watcher: z.string(),
  key: z.string(),
  type: z.string(),
  sessionId: z.string().nullable(),
  turnId: z.string().nullable(),
  line: z.string(),
  urgent: z.boolean(),
  subs: z.array(z.string()),
  at: z.number(),
  /** Type `spend` (asked for with `spend=1`): what the turn `turnId`, run there for the
   * watcher's prompt, reported. Not an event for the watcher: its group budget counts it. */
  usage: PeerUsage.optional().catch(undefined),
});
export type OutboxEvent = z.output<typeof OutboxEvent>;

/** GET /events: the events after the cursor, and where each subscription asked about stands
 * (null while active, else why it ended). */
export const EventsAnswer = z.object({
  events: z.array(OutboxEvent).default([]),
  subs: z.record(z.string(), z.string().nullable()).default({}),
});

/** POST /pair: the credential this relay keeps, and the other relay's own name. */
export const PairAnswer = z.object({
  credential: z.string(),
  name: z.string().optional().catch(undefined),
  version: z.string().optional().catch(undefined),
});

/** GET /questions: the pending asks this relay's conversations keep there (peer/questions.ts). */
export const QuestionsAnswer = z.object({ questions: z.array(z.looseObject({ id: z.string() })) });

/** POST /questions/:id: the answered question, or a refusal. */
export const AnswerResult = z.looseObject({
  ok: z.boolean().optional(),
  code: z.enum(ERROR_CODES).optional().catch(undefined),
  error: z.string().optional().catch(undefined),
});
