// What a subscription is and which events exist (seed §9 "Events").
import type { QuietHours } from "./quiet-hours.ts";

export const EVENT_TYPES = [
  "question_asked",
  "question_answered",
  "error",
  "turn_end",
  "subagent_finished",
  "task_started",
  "task_finished",
  "task_failed",
  "stalled",
  "all_idle",
  "overlap",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Never held by digest or quiet hours, never by the wake-up cap, and they close the gathering window. */
export const URGENT = new Set<string>(["question_asked", "question_answered", "error"]);

/** Since 0.9.13 (seed "Default events"). */
export const DEFAULT_EVENTS: EventType[] = [
  "question_asked",
  "error",
  "turn_end",
  "subagent_finished",
  "task_failed",
  "stalled",
  "all_idle",
  "overlap",
];
/** Before 0.9.13 a subscription without events got every task end and start; our reading of the seed's history. */
export const OLD_DEFAULT_EVENTS: EventType[] = [
  "question_asked",
  "error",
  "turn_end",
  "task_started",
  "task_finished",
  "stalled",
  "all_idle",
];

/** The version each event name appeared in; an older emulated relay refuses it by name. */
export const EVENT_SINCE: Partial<Record<EventType, string>> = {
  subagent_finished: "0.9.13",
  question_answered: "0.9.16",
  overlap: "0.9.19",
};

export const MAX_SUBSCRIPTIONS = 20;
export const DEFAULT_STALLED_MINUTES = 15;
export const GATHER_MS = 30_000;
export const WAKE_CAP = 20;
export const CAP_DIGEST_MS = 10 * 60_000;
export const ENDED_LISTED_MS = 60 * 60_000;

export type EndReason = "unsubscribed" | "archived" | "once" | "unpaired" | "transferred";

export interface SubRow {
  id: string;
  watcher: string;
  relay: string;
  scope: "sessions" | "all";
  sessions_json: string;
  exclude_json: string;
  events_json: string | null;
  once: number;
  match: string | null;
  stalled_minutes: number;
  heartbeat_minutes: number | null;
  digest_minutes: number | null;
  quiet_json: string | null;
  created_at: number;
  digest_anchor_at: number;
  heartbeat_due_at: number | null;
  idle_armed: number;
  ended_at: number | null;
  end_reason: EndReason | null;
  transferred_to: string | null;
}

/** A subscription as the capture path uses it: parsed once per change, kept in memory. */
export interface Sub {
  row: SubRow;
  id: string;
  watcher: string;
  all: boolean;
  sessions: string[];
  exclude: Set<string>;
  events: Set<EventType>;
  once: boolean;
  match: string | null;
  stalledMinutes: number;
  digestMinutes: number | null;
  quiet: QuietHours | null;
}

export interface EventRow {
  seq: number;
  watcher: string;
  key: string;
  type: string;
  session_id: string | null;
  turn_id: string | null;
  line: string;
  urgent: number;
  subs_json: string;
  at: number;
  state: "held" | "ready" | "sent" | "dropped";
  hold: "digest" | "quiet" | null;
  hold_sub: string | null;
  release_at: number | null;
  echo: number;
  capped: number;
  keep: number;
  message_id: string | null;
  sent_at: number | null;
}

/** Something that happened, before it is matched against subscriptions. */
export interface Happening {
  key: string;
  type: EventType | "heartbeat";
  sessionId: string | null;
  turnId?: string | null;
  /** The event line after "[relay event] ". */
  line: string;
  /** Only this subscription receives it (all_idle, heartbeats). */
  onlySub?: string;
  at: number;
  /** Found at start-up (the relay died before capturing it): only subscriptions older than it receive it. */
  recovered?: boolean;
}

/** Held events falling due, per holding subscription. */
export interface Due {
  hold: string | null;
  hold_sub: string | null;
  capped: number;
  at: number;
}

export interface NewEvent {
  key: string;
  type: string;
  sessionId: string | null;
  turnId: string | null;
  line: string;
  urgent: boolean;
  subs: string[];
  at: number;
  state: "held" | "ready";
  hold: "digest" | "quiet" | null;
  holdSub: string | null;
  releaseAt: number | null;
  echo: boolean;
  keep: boolean;
  /** Its place in the order things happened here (Delivery.nextSeq), taken when it was
   * captured: a capture written later by the write-behind batch keeps its place. */
  seq?: number;
}
