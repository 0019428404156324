import { iso } from "../core/clock.ts";
import type { Db } from "../store/db.ts";
import { sql } from "../store/sql.ts";

// What the owner's list and dashboard show of a session beyond list_sessions' entry: how
// its last turn ended (a failure must show in the list, in words), its last task when that
// one failed, and a one-line preview of its last message. Read for one page of ids, by
// index: each lookup reads the newest row of that session only.

const PREVIEW_CHARS = 160;

export interface Outcome {
  lastTurn: { status: "done" | "error" | "stopped"; error?: string; endedAt: string | null } | null;
  failedTask: { taskId: string; description: string; exitCode: number | null; endedAt: string | null } | null;
  preview: { role: string; text: string; at: string | null } | null;
}

/** A message's first non-empty line, without the relay's own bracketed header line. */
export function previewLine(text: string): string {
  // Code fences and blank lines say nothing on their own.
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !/^(```|~~~)/.test(l));
  const body = lines.length > 1 && /^\[(relay|Prompt from|Remote prompt)/.test(lines[0]) ? lines.slice(1) : lines;
  const line = body[0] ?? "";
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line;
}

export function outcomes(db: Db, ids: string[]): Map<string, Outcome> {
  const out = new Map<string, Outcome>();
  const turn = sql(
    db,
    "SELECT status, error, ended_at FROM turns WHERE session_id = ? AND ended_at IS NOT NULL ORDER BY ended_at DESC LIMIT 1",
  );
  const task = sql(
    db,
    "SELECT id, description, status, exit_code, ended_at FROM tasks WHERE session_id = ? AND ended_at IS NOT NULL ORDER BY ended_at DESC LIMIT 1",
  );
  const message = sql(db, "SELECT role, text, created_at FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT 1");
  for (const id of ids) {
    const t = turn.get(id) as
      | { status: "done" | "error" | "stopped"; error: string | null; ended_at: number | null }
      | undefined;
    const k = task.get(id) as
      | { id: string; description: string; status: string; exit_code: number | null; ended_at: number | null }
      | undefined;
    const m = message.get(id) as { role: string; text: string; created_at: number } | undefined;
    out.set(id, {
      lastTurn: t ? { status: t.status, ...(t.error ? { error: t.error } : {}), endedAt: iso(t.ended_at) } : null,
      failedTask:
        k && k.status === "failed"
          ? { taskId: k.id, description: k.description, exitCode: k.exit_code, endedAt: iso(k.ended_at) }
          : null,
      preview: m ? { role: m.role, text: previewLine(m.text), at: iso(m.created_at) } : null,
    });
  }
  return out;
}
