import { z } from "zod";
import { defineAction } from "./define.ts";
import { RelayError } from "../core/errors.ts";
import { HOUR, iso } from "../core/clock.ts";
import { targetSession } from "./target.ts";
import { stallOf } from "../tasks/health.ts";
import { toPlainLines } from "../tasks/plain-text.ts";
import { TAIL_DEFAULT, TAIL_MAX, tailLines } from "../tasks/tail.ts";
import { testCounts } from "../tasks/test-counts.ts";
import { maskSecrets } from "../tasks/mask-secrets.ts";

export const readTaskOutput = defineAction({
  name: "read_task_output",
  since: "0.9.12",
  write: false,
  level: "read",
  nothing: "Nothing was read.",
  args: {
    session: z.string().min(1).describe("Session id the task runs in."),
    task_id: z.string().min(1).describe("taskId from read_session's tasks."),
    lines: z
      .number()
      .int()
      .min(1)
      .describe(`How many lines from the end (default ${TAIL_DEFAULT}, at most ${TAIL_MAX}).`),
  },
  handler(ctx, { session, task_id, lines: asked = TAIL_DEFAULT }) {
    const { identity, clock, tasks } = ctx;
    const s = targetSession(ctx, "read_task_output", session);
    const taskId = String(task_id);
    const t = tasks.task(s.id, taskId);
    const gone = t && t.status !== "running" && (t.ended_at ?? 0) <= clock.now() - HOUR;
    if (!t || gone) {
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        gone
          ? `Task ${taskId} in session ${s.id} ended more than an hour ago; its output is no longer kept. Nothing was read.`
          : `No task ${taskId.slice(0, 80)} in session ${s.id} (read_session lists its tasks). Nothing was read.`,
      );
    }
    const out = tasks.readOutput(t);
    const lines = toPlainLines(maskSecrets(out.text, ctx.secrets()));
    const { tail, truncated } = tailLines(lines, Math.min(asked, TAIL_MAX));
    const counts = testCounts(lines);
    const stall = stallOf(ctx, t);
    const notes: string[] = [];
    if (!t.output_path) notes.push(`A ${t.type} task has no console output; only its status is known.`);
    else if (!out.exists) notes.push("The task has written no output yet.");
    if (out.clipped) notes.push("Only the end of the output is kept for reading.");
    if (asked > TAIL_MAX) notes.push(`lines is at most ${TAIL_MAX}; the last ${TAIL_MAX} are shown.`);
    const parts = [`${tail.length} lines`, t.status];
    if (stall) parts.push(`last output ${stall.minutes} min ago`);
    if (counts) parts.push(`${counts.passed} passed, ${counts.failed} failed`);
    return {
      summary: `read_task_output → ${identity.name} session ${s.id} task ${t.id}: ${parts.join(", ")}`,
      task: {
        id: t.id,
        description: t.description,
        type: t.type,
        startedAt: iso(t.started_at),
        endedAt: iso(t.ended_at),
        status: t.status,
        exitCode: t.exit_code,
      },
      ...(stall ? { stall } : {}),
      ...(counts ? { counts } : {}),
      tail,
      truncated: truncated || out.clipped,
      ...(notes.length ? { note: notes.join(" ") } : {}),
    };
  },
});
