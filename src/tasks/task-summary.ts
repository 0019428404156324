import { iso } from "../core/clock.ts";
import type { TaskRow } from "../sessions/types.ts";

/** A task as results and the owner API show it. */
export function taskSummary(t: TaskRow) {
  return {
    taskId: t.id,
    type: t.type,
    description: t.description,
    status: t.status,
    exitCode: t.exit_code,
    startedAt: iso(t.started_at),
    endedAt: iso(t.ended_at),
    output: !!t.output_path,
  };
}
