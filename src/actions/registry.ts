import type { ActionDef } from "./types.ts";
import { listRelays } from "./list-relays.ts";
import { relayInfo } from "./relay-info.ts";
import { usage } from "./usage.ts";
import { listSessions } from "./list-sessions.ts";
import { readSession } from "./read-session.ts";
import { readTaskOutput } from "./read-task-output.ts";
import { send } from "./send.ts";
import { createSession } from "./create-session.ts";
import { wait } from "./wait.ts";
import { stop } from "./stop.ts";
import { archive } from "./archive.ts";
import { schedule } from "./schedule.ts";
import { listSchedules } from "./list-schedules.ts";
import { unschedule } from "./unschedule.ts";
import { ask } from "./ask.ts";
import { listQuestions } from "./list-questions.ts";
import { withdraw } from "./withdraw.ts";
import { answerQuestion } from "./answer-question.ts";
import { updateSession } from "./update-session.ts";
import { subscribe } from "./subscribe.ts";
import { unsubscribe } from "./unsubscribe.ts";
import { listSubscriptions } from "./list-subscriptions.ts";
import { transferSubscriptions } from "./transfer-subscriptions.ts";
import { claim } from "./claim.ts";
import { release } from "./release.ts";
import { listClaims } from "./list-claims.ts";
import { merge } from "./merge.ts";

/** Every relay_tool action. Later capabilities add theirs here and nowhere else. */
export const ACTIONS: ActionDef[] = [
  listRelays,
  relayInfo,
  usage,
  listSessions,
  readSession,
  readTaskOutput,
  send,
  createSession,
  wait,
  stop,
  archive,
  updateSession,
  answerQuestion,
  schedule,
  listSchedules,
  unschedule,
  ask,
  listQuestions,
  withdraw,
  subscribe,
  unsubscribe,
  listSubscriptions,
  transferSubscriptions,
  claim,
  release,
  listClaims,
  merge,
];

const byName = new Map(ACTIONS.map((a) => [a.name, a]));
export const actionByName = (name: string): ActionDef | undefined => byName.get(name);
