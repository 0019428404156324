import { createRequire } from "node:module";
import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";
import { performance } from "node:perf_hooks";
import { iso, type Cancel, type Clock } from "./clock.ts";

// Gives the memory a burst of work grew back once the relay goes quiet (issue 18, item 21).
//
// V8 grows its young generation under load (semi-spaces of 1 → 16 MB, both resident: up to
// 32 MB) and shrinks it only in a collection that sees little allocation or is asked to
// reduce memory. An idle relay runs no collection at all, and V8's memory reducer, which is
// meant for exactly this, runs once after start and after that only when a mark-compact finds
// the old generation 10 MB larger than at its last run. So 1,000 sessions created (or an hour
// of turns) left the relay 30–45 MB above its fresh size for good, none of it live: with
// 1,000 or 3,000 sessions created the heap after a full collection is the same ~15 MB.
//
// Every request and every bus event marks activity. Once nothing has happened for QUIET_MS on
// the relay's clock, and V8's heap has grown GROWTH_BYTES since the last trim, one collection
// runs with V8's low-memory flags: the inspector's HeapProfiler.collectGarbage, the only way
// Node offers to it (full mark-compacts until nothing more is freed; the young generation
// back to its smallest). It costs ~15–120 ms of CPU, when nothing else is asked of the relay.

export const QUIET_MS = 10_000;
const GROWTH_BYTES = 4 * 1024 * 1024;

export interface HeapFigures {
  /** V8 heap committed (process.memoryUsage().heapTotal), bytes. */
  heap: number;
  /** Its young generation (new space) committed, bytes. */
  young: number;
}

export function heapFigures(): HeapFigures {
  const young = getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0;
  return { heap: getHeapStatistics().total_heap_size, young };
}

/** V8's low-memory collection through an in-process inspector session. False when this Node
 * has no inspector (built without it). Required on first use, not imported: import() of a
 * built-in fails in the bundle (run through vm.Script), and a missing inspector must not stop
 * the relay from starting. */
export async function collectLowMemory(): Promise<boolean> {
  let Session: typeof import("node:inspector").Session;
  try {
    ({ Session } = createRequire(import.meta.url)("node:inspector") as typeof import("node:inspector"));
  } catch {
    return false;
  }
  const session = new Session();
  session.connect();
  return await new Promise<boolean>((resolve) => {
    session.post("HeapProfiler.collectGarbage", (err) => {
      // Disconnecting from inside the session's own callback leaves Node's event loop stuck
      // (Node 20): the next tick does it.
      setImmediate(() => {
        session.disconnect();
        resolve(!err);
      });
    });
  });
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

export class MemoryTrim {
  private lastActivity: number;
  private timer: Cancel | null = null;
  /** The heap right after the last trim: a trim runs again only once it has grown past it. */
  private floor = 0;
  private running = false;
  private stopped = false;

  constructor(private readonly clock: Clock) {
    this.lastActivity = clock.now();
  }

  /** Something happened (a request, an event): the quiet period starts again. One clock
   * entry at a time, re-armed when it comes due too early: this runs on every request. */
  touch(): void {
    this.lastActivity = this.clock.now();
    this.arm(this.lastActivity + QUIET_MS);
  }

  stop(): void {
    this.stopped = true;
    this.timer?.();
    this.timer = null;
  }

  private arm(at: number): void {
    if (!this.stopped) this.timer ??= this.clock.at(at, () => this.due());
  }

  private due(): void {
    this.timer = null;
    const quietSince = this.lastActivity;
    if (this.clock.now() - quietSince < QUIET_MS) this.arm(quietSince + QUIET_MS);
    else void this.trim(quietSince);
  }

  private async trim(quietSince: number): Promise<void> {
    const before = heapFigures();
    if (this.running || before.heap < this.floor + GROWTH_BYTES) return;
    this.running = true;
    const at = this.clock.now();
    const t0 = performance.now();
    try {
      if (!(await collectLowMemory())) return;
    } finally {
      this.running = false;
    }
    const after = heapFigures();
    this.floor = after.heap;
    // Work that is neither a request nor an event (a provider probe, an agent process
    // reattached at start) may still grow the heap after this: one more look once the next
    // quiet period has passed, which ends the chain when the heap stays put.
    this.arm(this.clock.now() + QUIET_MS);
    console.log(
      `[memory] quiet since ${iso(quietSince)}, at ${iso(at)}: V8 heap ${mb(before.heap)} → ${mb(after.heap)} MB, ` +
        `young generation ${mb(before.young)} → ${mb(after.young)} MB (${(performance.now() - t0).toFixed(0)} ms)`,
    );
  }
}
