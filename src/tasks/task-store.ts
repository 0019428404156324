import { mkdirSync, readFileSync, existsSync, statSync, openSync, readSync, closeSync } from "node:fs";
import { join } from "node:path";
import type { Bus } from "../core/bus.ts";
import type { Clock } from "../core/clock.ts";
import type { Db } from "../store/db.ts";
import type { TaskRow } from "../sessions/types.ts";
import type { TaskNotice } from "../providers/acp-worker.ts";
import { HOUR, type Cancel } from "../core/clock.ts";
import { OutputFiles, type OutputLimits } from "./output-files.ts";
import { endGroup } from "./process-groups.ts";

/** read_task_output works for an hour after a task ends (contract §6); its file goes then. */
export const OUTPUT_KEPT_MS = HOUR;
const NO_LIMITS: OutputLimits = { perTaskBytes: 20 * 1024 * 1024, totalBytes: 1024 * 1024 * 1024 };

const MAX_READ = 2 * 1024 * 1024;

/** The sessions with a running task, as a subquery (the session list filters on it). */
export const RUNNING_TASK_SESSIONS = "SELECT session_id FROM tasks WHERE status = 'running'";

export interface TaskStoreDeps {
  db: Db;
  clock: Clock;
  bus: Bus;
  /** Output files go under `<dataDir>/tasks`. */
  dataDir: string;
  /** The output size limits, read when a file grows (they are settings). */
  limits?: () => OutputLimits;
}

/** Background tasks (shell commands, subagents) an agent reports; shell output is kept
 * in a file per task under DATA/tasks, which the task console and read_task_output read. */
export class TaskStore {
  private dir: string;
  readonly files: OutputFiles;
  private sweepTimer: Cancel | null = null;
  private sweepAt = Infinity;
  private db: Db;
  private clock: Clock;
  private bus: Bus;
  private q;

  constructor(d: TaskStoreDeps) {
    const { db } = d;
    this.db = db;
    this.clock = d.clock;
    this.bus = d.bus;
    this.dir = join(d.dataDir, "tasks");
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.q = {
      running: db.prepare("SELECT * FROM tasks WHERE status = 'running'"),
      ofSession: db.prepare("SELECT * FROM tasks WHERE session_id = ? ORDER BY started_at"),
      one: db.prepare("SELECT * FROM tasks WHERE id = ? AND session_id = ?"),
    };
    const endedFiles = db
      .prepare("SELECT output_path FROM tasks WHERE output_path IS NOT NULL AND ended_at IS NOT NULL ORDER BY ended_at")
      .pluck();
    this.files = new OutputFiles(this.dir, d.limits ?? (() => NO_LIMITS), () => endedFiles.all() as string[]);
    d.bus.on((e) => {
      if (e.type === "session.deleted") this.dropOutput(e.sessionId);
    });
  }

  /** Every running task, of all sessions. */
  runningTasks(): TaskRow[] {
    return this.q.running.all() as TaskRow[];
  }

  /** A session's tasks, oldest first. */
  tasksOf(sessionId: string): TaskRow[] {
    return this.q.ofSession.all(sessionId) as TaskRow[];
  }

  task(sessionId: string, taskId: string): TaskRow | undefined {
    return this.q.one.get(taskId, sessionId) as TaskRow | undefined;
  }

  /** At start-up: delete the output whose read window ended while the relay was down. */
  start(): void {
    this.sweep();
  }

  /** At start-up: tasks of sessions whose worker was not taken back (`kept`) can no longer
   * report; their process groups end and they show killed. */
  recover(kept: Set<string>): void {
    const sessions = this.db
      .prepare("SELECT DISTINCT session_id FROM tasks WHERE status = 'running'")
      .pluck()
      .all() as string[];
    for (const id of sessions) if (!kept.has(id)) this.agentGone(id);
  }

  /** Deletes output files of tasks ended more than an hour ago; arms for the next one. */
  private sweep(): void {
    const now = this.clock.now();
    const db = this.db;
    const expired = db
      .prepare("SELECT output_path FROM tasks WHERE output_path IS NOT NULL AND ended_at IS NOT NULL AND ended_at <= ?")
      .pluck()
      .all(now - OUTPUT_KEPT_MS) as string[];
    for (const path of expired) this.files.remove(path);
    const next = db
      .prepare(
        "SELECT MIN(ended_at) FROM tasks WHERE output_path IS NOT NULL AND ended_at IS NOT NULL AND ended_at > ?",
      )
      .pluck()
      .get(now - OUTPUT_KEPT_MS) as number | null;
    this.armSweep(next == null ? Infinity : next + OUTPUT_KEPT_MS);
  }

  private armSweep(at: number): void {
    if (at >= this.sweepAt && this.sweepTimer) return;
    this.sweepTimer?.();
    this.sweepTimer = null;
    this.sweepAt = at;
    if (at === Infinity) return;
    this.sweepTimer = this.clock.at(at, () => {
      this.sweepTimer = null;
      this.sweepAt = Infinity;
      this.sweep();
    });
  }

  /** A deleted session's task output goes at once. */
  private dropOutput(sessionId: string): void {
    for (const t of this.tasksOf(sessionId)) if (t.output_path) this.files.remove(t.output_path);
  }

  private key(sessionId: string, taskId: string): string {
    return `${sessionId}.${taskId}`.replace(/[^A-Za-z0-9._-]/g, "_");
  }

  report(sessionId: string, t: TaskNotice): void {
    const db = this.db;
    const now = this.clock.now();
    const existing = this.task(sessionId, t.taskId);
    if (!existing) {
      db.prepare(`INSERT INTO tasks (id, session_id, type, description, status, exit_code, output_path, started_at, ended_at, last_output_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`).run(
        t.taskId,
        sessionId,
        t.type,
        t.description,
        t.status,
        t.exitCode ?? null,
        t.type === "local_bash" ? join(this.dir, `${this.key(sessionId, t.taskId)}.log`) : null,
        now,
        t.status === "running" ? null : now,
      );
    } else if (existing.status === "running" && t.status !== "running") {
      db.prepare("UPDATE tasks SET status = ?, exit_code = ?, ended_at = ? WHERE id = ? AND session_id = ?").run(
        t.status,
        t.exitCode ?? null,
        now,
        t.taskId,
        sessionId,
      );
    } else return;
    if (t.status === "running" && t.pgid)
      db.prepare("UPDATE tasks SET pgid = ? WHERE id = ? AND session_id = ?").run(t.pgid, t.taskId, sessionId);
    if (t.status !== "running") this.armSweep(now + OUTPUT_KEPT_MS);
    this.bus.emit({ type: "task.updated", sessionId, taskId: t.taskId, status: t.status, taskType: t.type });
    this.bus.emit({ type: "session.updated", sessionId });
  }

  /** The agent process that reported the session's tasks ended: tasks still running can no
   * longer report, so they end as `killed` (the session is idle again, not background_only). */
  agentGone(sessionId: string): void {
    const running = this.tasksOf(sessionId).filter((t) => t.status === "running");
    if (!running.length) return;
    // Their process groups outlive the agent: end them, and show the tasks killed only once
    // they are really gone.
    const groups = running.map((t) => t.pgid).filter((g): g is number => !!g);
    if (groups.length) {
      void Promise.all(groups.map((g) => endGroup(g))).then(() => this.markKilled(sessionId, running));
      return;
    }
    this.markKilled(sessionId, running);
  }

  private markKilled(sessionId: string, running: TaskRow[]): void {
    const now = this.clock.now();
    const db = this.db;
    db.transaction(() => {
      for (const t of running)
        db.prepare(
          "UPDATE tasks SET status = 'killed', ended_at = ? WHERE id = ? AND session_id = ? AND status = 'running'",
        ).run(now, t.id, sessionId);
    })();
    for (const t of running)
      this.bus.emit({ type: "task.updated", sessionId, taskId: t.id, status: "killed", taskType: t.type });
    this.bus.emit({ type: "session.updated", sessionId });
    this.armSweep(now + OUTPUT_KEPT_MS);
  }

  output(sessionId: string, taskId: string, chunk: string): void {
    const task = this.task(sessionId, taskId);
    if (!task?.output_path || !chunk) return;
    this.files.append(task.output_path, chunk);
    this.db
      .prepare("UPDATE tasks SET last_output_at = ? WHERE id = ? AND session_id = ?")
      .run(this.clock.now(), taskId, sessionId);
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
