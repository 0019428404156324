import { appendFileSync, mkdirSync, readFileSync, existsSync, statSync, openSync, readSync, closeSync } from "node:fs";
import { join } from "node:path";
import type { Bus } from "../core/bus.ts";
import type { Clock } from "../core/clock.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import type { TaskRow } from "../sessions/types.ts";
import type { TaskNotice } from "../providers/acp-worker.ts";

const MAX_READ = 2 * 1024 * 1024;

/** Background tasks (shell commands, subagents) an agent reports; shell output is kept
 * in a file per task under DATA/tasks, which the task console and read_task_output read. */
export class TaskStore {
  private dir: string;

  constructor(
    private store: SessionStore,
    private clock: Clock,
    private bus: Bus,
    dataDir: string,
  ) {
    this.dir = join(dataDir, "tasks");
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  private key(sessionId: string, taskId: string): string {
    return `${sessionId}.${taskId}`.replace(/[^A-Za-z0-9._-]/g, "_");
  }

  report(sessionId: string, t: TaskNotice): void {
    const db = this.store.db;
    const now = this.clock.now();
    const existing = this.store.task(sessionId, t.taskId);
    if (!existing) {
      db.prepare(`INSERT INTO tasks (id, session_id, type, description, status, exit_code, output_path, started_at, ended_at, last_output_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`).run(
        t.taskId, sessionId, t.type, t.description, t.status, t.exitCode ?? null,
        t.type === "local_bash" ? join(this.dir, this.key(sessionId, t.taskId) + ".log") : null,
        now, t.status === "running" ? null : now,
      );
    } else if (existing.status === "running" && t.status !== "running") {
      db.prepare("UPDATE tasks SET status = ?, exit_code = ?, ended_at = ? WHERE id = ? AND session_id = ?").run(t.status, t.exitCode ?? null, now, t.taskId, sessionId);
    } else return;
    this.bus.emit({ type: "task.updated", sessionId, taskId: t.taskId, status: t.status, taskType: t.type });
    this.bus.emit({ type: "session.updated", sessionId });
  }

  /** The agent process that reported the session's tasks ended: tasks still running can no
   * longer report, so they end as `killed` (the session is idle again, not background_only). */
  agentGone(sessionId: string): void {
    const running = this.store.tasksOf(sessionId).filter((t) => t.status === "running");
    if (!running.length) return;
    const now = this.clock.now();
    const db = this.store.db;
    db.transaction(() => {
      for (const t of running) db.prepare("UPDATE tasks SET status = 'killed', ended_at = ? WHERE id = ? AND session_id = ? AND status = 'running'").run(now, t.id, sessionId);
    })();
    for (const t of running) this.bus.emit({ type: "task.updated", sessionId, taskId: t.id, status: "killed", taskType: t.type });
    this.bus.emit({ type: "session.updated", sessionId });
  }

  output(sessionId: string, taskId: string, chunk: string): void {
    const task = this.store.task(sessionId, taskId);
    if (!task?.output_path || !chunk) return;
    appendFileSync(task.output_path, chunk, { mode: 0o600 });
    this.store.db.prepare("UPDATE tasks SET last_output_at = ? WHERE id = ? AND session_id = ?").run(this.clock.now(), taskId, sessionId);
  }

  /** The end of a task's output (at most 2 MiB), and whether anything came before it. */
  readOutput(task: TaskRow): { text: string; clipped: boolean; exists: boolean } {
    if (!task.output_path || !existsSync(task.output_path)) return { text: "", clipped: false, exists: false };
    const size = statSync(task.output_path).size;
    if (size <= MAX_READ) return { text: readFileSync(task.output_path, "utf8"), clipped: false, exists: true };
    const fd = openSync(task.output_path, "r");
    try {
      const buf = Buffer.alloc(MAX_READ);
      readSync(fd, buf, 0, MAX_READ, size - MAX_READ);
      const text = buf.toString("utf8");
      return { text: text.slice(text.indexOf("\n") + 1), clipped: true, exists: true };
    } finally {
      closeSync(fd);
    }
  }
}
