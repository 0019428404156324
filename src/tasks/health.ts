import type { SettingsStore } from "../core/settings.ts";
import type { Clock } from "../core/clock.ts";
import type { TaskRow } from "../sessions/types.ts";
import { iso, MINUTE } from "../core/clock.ts";
import { taskSummary } from "./task-summary.ts";
import type { TaskStore } from "./task-store.ts";
import { toPlainLines } from "./plain-text.ts";
import { testCounts } from "./test-counts.ts";

/** What a task's health reads: the time, the quiet setting and, for taskHealth, its output. */
export interface StallDeps {
  clock: Pick<Clock, "now">;
  settings: Pick<SettingsStore, "get">;
}

export interface HealthDeps extends StallDeps {
  tasks: Pick<TaskStore, "readOutput">;
}

/** How long a running task has been quiet, against the relay's quiet setting. */
export function stallOf(d: StallDeps, t: TaskRow) {
  if (t.status !== "running") return null;
  const since = t.last_output_at ?? t.started_at;
  const minutes = Math.floor((d.clock.now() - since) / MINUTE);
  const quietAfterMinutes = d.settings.get().quietAfterMinutes;
  return { minutes, since: iso(since), quiet: minutes >= quietAfterMinutes, quietAfterMinutes };
}

/** read_session's task entry: taskId, output, and for output files `health`. */
export function taskHealth(d: HealthDeps, t: TaskRow) {
  const base = taskSummary(t);
  if (!t.output_path) return base;
  const stall = stallOf(d, t);
  const out = d.tasks.readOutput(t);
  const counts = out.exists ? testCounts(toPlainLines(out.text)) : null;
  return {
    ...base,
    output: out.exists,
    health: {
      ...(stall
        ? { minutesSinceOutput: stall.minutes, quiet: stall.quiet, quietAfterMinutes: stall.quietAfterMinutes }
        : {}),
      ...(counts ? { counts } : {}),
    },
  };
}
