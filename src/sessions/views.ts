import { iso } from "../core/clock.ts";
import { fromJson } from "../store/db.ts";
import type { Relay } from "../relay.ts";
import { questionView } from "../questions/ask-user.ts";
import type { MessageRow, SessionRow, TaskRow } from "./types.ts";
import { groupOf } from "../groups/groups.ts";

// How sessions, messages and tasks look in results and in the owner API.

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

export function messageView(m: MessageRow) {
  const from = fromJson<Record<string, unknown> | null>(m.from_json, null);
  const meta = fromJson<Record<string, unknown> | null>(m.meta_json, null);
  return {
    id: m.id,
    role: m.role,
    text: m.text,
    createdAt: iso(m.created_at),
    ...(from ? { from } : {}),
    ...(meta?.status === "error" ? { error: meta.error } : {}),
    ...(meta?.model ? { model: meta.model } : {}),
  };
}

export interface ListContext {
  busy: Set<string>;
  tasks: TaskRow[];
}

export function listContext(relay: Relay): ListContext {
  return { busy: relay.sessions.busySessions(), tasks: relay.sessions.runningTasks() };
}

/** A `list_sessions` entry (contract §8). */
export function sessionEntry(relay: Relay, s: SessionRow, lc: ListContext = listContext(relay)) {
  const via = s.via_session ? relay.sessions.get(s.via_session) : undefined;
  const tasks = lc.tasks.filter((t) => t.session_id === s.id).map(taskSummary);
  return {
    id: s.id,
    title: s.title,
    provider: s.provider,
    model: s.model,
    effort: s.effort,
    mode: s.mode,
    state: lc.busy.has(s.id) ? "running_turn" : tasks.length ? "background_only" : "idle",
    cwd: s.cwd,
    ...(s.repo ? { repo: s.repo, branch: s.branch } : {}),
    lastActivityAt: iso(s.last_activity_at),
    messageCount: s.message_count,
    tasks,
    group: groupOf(relay, s),
    mayCreateSessions: !!s.may_create_sessions,
    viaAgent: s.via_session ? { session: s.via_session, title: via?.title ?? null } : null,
    watched: relay.watching?.isWatched(s.id) ?? false,
    watching: relay.watching?.watchingCount(s.id) ?? 0,
    ...(s.archived_at ? { archived: true } : {}),
  };
}

export function pendingQuestions(relay: Relay, sessionId: string) {
  return relay.questions.pending(sessionId).map(questionView);
}
