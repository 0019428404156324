import type { Db } from "../store/db.ts";
import type { Clock } from "../core/clock.ts";
import type { Bus } from "../core/bus.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import type { Turns } from "../sessions/turns.ts";
import type { Workers } from "../providers/workers.ts";
import type { ProviderProbes } from "../providers/probes.ts";
import type { TaskStore } from "../tasks/task-store.ts";
import type { Questions } from "../questions/ask-user.ts";
import type { Approvals } from "../approvals/approvals.ts";
import type { Schedules } from "../schedules/schedules.ts";
import type { Watching } from "../watching/watching.ts";
import type { Pairing } from "../pairing/pairing.ts";
import type { Notify } from "../notify/notify.ts";
import type { Worktrees } from "../worktrees/worktrees.ts";
import type { AppServices } from "./services.ts";
import type { ListenAddress } from "./address.ts";

/** What start() and close() drive, as build.ts made them (and what bench/watching.ts reads:
 * the store, the clock, the watching domain's parts). Nothing outside app/ and bench/ uses it. */
export interface RelayParts {
  db: Db;
  clock: Clock;
  bus: Bus;
  sessions: SessionStore;
  turns: Turns;
  workers: Workers;
  probes: ProviderProbes;
  tasks: TaskStore;
  questions: Questions;
  approvals: Approvals;
  schedules: Schedules;
  watch: Watching;
  pairing: Pairing;
  worktrees: Pick<Worktrees, "start" | "close">;
  address: ListenAddress;
  notify: Notify;
  notifyHooks: { startUp(): void };
}

/** One relay, built and wired (app/build.ts): the services its surfaces get, and its start
 * and stop. */
export class RelayApp {
  constructor(
    readonly services: AppServices,
    readonly parts: RelayParts,
  ) {}

  /** Starts what was waiting when the relay went down: first the workers that ran on
   * (the keeper), so their running turns are taken back instead of ended. */
  async start(): Promise<void> {
    const p = this.parts;
    p.questions.recover();
    p.approvals.recover();
    const kept = await p.workers.attachAll((id) => p.sessions.activeTurns(id).find((t) => t.status === "running"));
    // Same tick as attachAll's end: the replays of resumed turns come on a later one.
    for (const sessionId of p.turns.recover(kept.resumable)) p.turns.kick(sessionId);
    p.tasks.recover(kept.sessions);
    p.watch.start();
    p.schedules.start();
    p.pairing.start();
    p.tasks.start();
    p.probes.startAll();
    // Cards the restart expired are not notified; what still waits and was never recorded (a
    // kill between its commit and its need's record) is; what fell due while down goes out now.
    p.notifyHooks.startUp();
    p.notify.notifier.start();
    await p.worktrees.start();
  }

  /** `keepWorkers` (a graceful stop: upgrade, service restart): the agents stay with the
   * keeper, their turns running, for the next start to take back. Otherwise they end. */
  close(opts: { keepWorkers?: boolean } = {}): void {
    const p = this.parts;
    p.pairing.stop();
    p.notify.notifier.close();
    if (opts.keepWorkers) {
      p.turns.shutdown();
      p.workers.detachAll();
    } else p.workers.stopAll();
    void p.worktrees.close();
    p.db.close();
  }
}
