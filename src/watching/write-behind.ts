// Hot-path writes of the watching domain, gathered into one transaction every few
// milliseconds instead of one commit per event (a commit costs more than everything else
// an event does). Anything that reads the watching tables calls flush() first, so reads always
// see every event captured so far.
//
// Exactly-once is kept: a SIGKILL before a flush loses only captures that start-up makes
// again from the turns, tasks and questions tables (recovery.ts); the key (watcher, key)
// keeps a capture made twice to one row. Events start-up could not find again (stalled,
// all_idle, heartbeats) are flushed at once by the capture that makes them.
import type { Db } from "../store/db.ts";
import { safely } from "./later.ts";

const BATCH_MS = 100;

export class WriteBehind {
  private ops: (() => void)[] = [];
  private scheduled = false;
  private run: (ops: (() => void)[]) => void;

  constructor(private db: Db) {
    this.run = db.transaction((ops: (() => void)[]) => {
      for (const op of ops) op();
    });
  }

  push(op: () => void): void {
    this.ops.push(op);
    if (this.scheduled) return;
    this.scheduled = true;
    // Real time on purpose: this batches disk writes, it is not a relay timer (nothing the
    // relay decides waits on it: every read flushes first).
    setTimeout(
      safely("writing captured events", () => this.flush()),
      BATCH_MS,
    );
  }

  flush(): void {
    this.scheduled = false;
    if (!this.ops.length) return;
    // Closed (the relay stopped): start-up captures these again from what they describe.
    if (!this.db.open) {
      this.ops = [];
      return;
    }
    const ops = this.ops;
    this.ops = [];
    this.run(ops);
  }
}
