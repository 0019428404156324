// Which sessions are working (a queued or running turn, or a running task), kept from the
// bus so that all_idle costs no store read per event. The store still confirms before an
// all_idle goes out (monitors.ts), so a missed bus message can delay one, never fake one.

export class BusyTracker {
  private turns = new Set<string>();
  private tasks = new Map<string, Set<string>>();

  /** Start-up: what the store says is working now. */
  load(
    sessions: { busySessions(): Set<string> },
    tasks: { runningTasks(): { id: string; session_id: string }[] },
  ): void {
    this.turns = sessions.busySessions();
    this.tasks.clear();
    for (const t of tasks.runningTasks()) this.task(t.session_id, t.id, true);
  }

  turnStarted(sessionId: string): void {
    this.turns.add(sessionId);
  }

  /** A turn ended. A queued one behind it starts right after, in the same tick. */
  turnEnded(sessionId: string): void {
    this.turns.delete(sessionId);
  }

  task(sessionId: string, taskId: string, running: boolean): void {
    let set = this.tasks.get(sessionId);
    if (running) {
      if (!set) this.tasks.set(sessionId, (set = new Set()));
      set.add(taskId);
    } else if (set) {
      set.delete(taskId);
      if (!set.size) this.tasks.delete(sessionId);
    }
  }

  isBusy(sessionId: string): boolean {
    return this.turns.has(sessionId) || this.tasks.has(sessionId);
  }

  /** Every working session (few next to all sessions). */
  *busy(): Iterable<string> {
    yield* this.turns;
    for (const id of this.tasks.keys()) if (!this.turns.has(id)) yield id;
  }
}
