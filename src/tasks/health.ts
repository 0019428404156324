import type { Relay } from "../relay.ts";
import type { TaskRow } from "../sessions/types.ts";
import { iso, MINUTE } from "../core/clock.ts";
import { taskSummary } from "../sessions/views.ts";
import { toPlainLines } from "./plain-text.ts";
import { testCounts } from "./test-counts.ts";

/** How long a running task has been quiet, against the relay's quiet setting. */
export function stallOf(relay: Relay, t: TaskRow) {
  if (t.status !== "running") return null;
  const since = t.last_output_at ?? t.started_at;
  const minutes = Math.floor((relay.clock.now() - since) / MINUTE);
  const quietAfterMinutes = relay.settings.get().quietAfterMinutes;
  return { minutes, since: iso(since), quiet: minutes >= quietAfterMinutes, quietAfterMinutes };
}

/** read_session's task entry: taskId, output, and for output files `health`. */
export function taskHealth(relay: Relay, t: TaskRow) {
  const base = taskSummary(t);
  if (!t.output_path) return base;
  const stall = stallOf(relay, t);
  const out = relay.tasks.readOutput(t);
  const counts = out.exists ? testCounts(toPlainLines(out.text)) : null;
  return {
    ...base,
    output: out.exists,
    health: {
      ...(stall ? { minutesSinceOutput: stall.minutes, quiet: stall.quiet, quietAfterMinutes: stall.quietAfterMinutes } : {}),
      ...(counts ? { counts } : {}),
    },
  };
}
