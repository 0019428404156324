import type { Clock } from "../core/clock.ts";
import type { SettingsStore } from "../core/settings.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import type { Turns } from "../sessions/turns.ts";
import type { TaskStore } from "../tasks/task-store.ts";
import type { Questions } from "../questions/ask-user.ts";
import type { Asks } from "../questions/asks.ts";
import type { Answering } from "../questions/answering.ts";
import type { Approvals } from "../approvals/approvals.ts";
import type { Schedules } from "../schedules/schedules.ts";
import type { WatchingPort } from "../watching/port.ts";
import type { Pairing } from "../pairing/pairing.ts";
import type { Workers } from "../providers/workers.ts";
import type { Bus } from "../core/bus.ts";
import type { ProviderProbes } from "../providers/probes.ts";
import type { Groups } from "../groups/service.ts";
import type { SessionReads } from "../sessions/reads.ts";
import type { BudgetsPort } from "../budgets/holds.ts";
import type { Worktrees } from "../worktrees/worktrees.ts";

// The services the action path uses (issue 19): the composition root builds them once, the
// dispatcher hands them to every handler beside the call's own facts (types.ts CallInfo), and
// a handler destructures what it uses. Members are today's classes; they narrow as each
// domain declares its own deps. Declared here, by the consumer, so actions import no app.

/** Who this relay is. */
export interface Identity {
  readonly name: string;
  /** The version it presents (`--emulate-version` makes it older). */
  readonly version: string;
  readonly dataDir: string;
  /** Where a session starts when nothing names a folder. */
  readonly defaultCwd: string;
  /** "this", or this relay's own name (any case). */
  isSelf(relay: string): boolean;
}

/** Where agents and the owner reach this relay: known once the server listens. */
export interface Address {
  readonly mcpUrl: string;
  readonly baseUrl: string;
  /** The page's link to a session, once the server listens. */
  openUrl(sessionId: string): string | undefined;
}

/** Folders sessions were started in lately (relay_info's recentCwds), newest first. */
export interface RecentFolders {
  recent(): readonly string[];
  note(cwd: string): void;
}

export interface ActionServices {
  identity: Identity;
  clock: Clock;
  settings: SettingsStore;
  sessions: SessionStore;
  turns: Turns;
  tasks: TaskStore;
  questions: Questions;
  /** Answers a question: the answer and its `question_answered` events in one transaction. */
  answering: Answering;
  asks: Asks;
  approvals: Approvals;
  schedules: Schedules;
  watching: WatchingPort;
  pairing: Pairing;
  workers: Pick<Workers, "stop" | "has" | "kill">;
  folders: RecentFolders;
  /** Budgets (contract §10.4): their views, and what holds a queued turn. */
  budgets: BudgetsPort;
  address: Address;
  /** Parallel work in one repository (contract §10.1). */
  worktrees: Worktrees;
  /** What archiving or deleting a session did to its worktree, once done (its `note`). */
  worktreeEnded(sessionId: string): Promise<string | undefined>;
  /** Strings that must never show in results or task output (the owner token, provider keys,
   * paired relays' credentials). */
  secrets(): string[];
  /** List pages and entries, who started what, latest turns, reported usage (sessions/reads.ts). */
  sessionReads: SessionReads;
  groups: Groups;
  /** Availability probes of the CLI providers: relay_info waits for their first checks. */
  probes: Pick<ProviderProbes, "firstChecks">;
  bus: Pick<Bus, "emit">;
  /** Runs `fn` in one SQLite transaction: writes of several domains that land together. */
  transaction<T>(fn: () => T): T;
}
