import { iso } from "../core/clock.ts";
import { fromJson } from "../store/db.ts";
import type { Relay } from "../relay.ts";
import { questionView } from "../questions/ask-user.ts";
import type { MessageRow, TaskRow } from "./types.ts";
import { groupName, groupOf, type GroupRow } from "../groups/groups.ts";
import type { ListRow } from "./list-query.ts";
import { sql } from "../store/sql.ts";

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
  /** Read once per list rather than once per entry (a list of 1,000 sessions names the same
   * groups and starters hundreds of times; bench/RESULTS.md): live groups, the listed
   * sessions' titles, running tasks by session. Only when the list's rows are given. */
  groups?: Map<string, GroupRow>;
  titles?: Map<string, string>;
  tasksBySession?: Map<string, TaskRow[]>;
}

export function listContext(relay: Relay, rows?: ListRow[]): ListContext {
  const lc: ListContext = { busy: relay.sessions.busySessions(), tasks: relay.sessions.runningTasks() };
  if (!rows) return lc;
  lc.tasksBySession = new Map();
  for (const t of lc.tasks) {
    const list = lc.tasksBySession.get(t.session_id);
    if (list) list.push(t);
    else lc.tasksBySession.set(t.session_id, [t]);
  }
  // Only the groups and titles this page names: a page costs the same at any store size.
  const groupIds = [...new Set(rows.map((r) => r.group_id).filter((g): g is string => !!g))];
  lc.groups = new Map(
    groupIds.length ? (sql(relay.db, "SELECT * FROM groups WHERE dissolved_at IS NULL AND id IN (SELECT value FROM json_each(?))").all(JSON.stringify(groupIds)) as GroupRow[]).map((g) => [g.id, g]) : [],
  );
  lc.titles = new Map(rows.map((r) => [r.id, r.title]));
  const wanted = new Set<string>();
  for (const r of rows) if (r.via_session && !lc.titles.has(r.via_session)) wanted.add(r.via_session);
  for (const g of lc.groups.values()) if (!g.name && g.head_session && !lc.titles.has(g.head_session)) wanted.add(g.head_session);
  if (wanted.size) {
    const found = sql(relay.db, "SELECT id, title FROM sessions WHERE deleted_at IS NULL AND id IN (SELECT value FROM json_each(?))").all(JSON.stringify([...wanted])) as { id: string; title: string }[];
    for (const f of found) lc.titles.set(f.id, f.title);
  }
  return lc;
}

/** groupOf, from the list's lookups when it has them. */
function listGroup(relay: Relay, s: ListRow, lc: ListContext): ReturnType<typeof groupOf> {
  if (!lc.groups) return groupOf(relay, s);
  const g = s.group_id ? lc.groups.get(s.group_id) : undefined;
  if (!g) return null;
  const name = g.name || (g.head_session && lc.titles?.get(g.head_session)) || groupName(relay, g);
  return { id: g.id, name, role: g.head_session === s.id ? "head" : "member" };
}

function starterTitle(relay: Relay, id: string, lc: ListContext): string | null {
  return lc.titles?.get(id) ?? relay.sessions.get(id)?.title ?? relay.pairing.remoteTitle(id);
}

/** A `list_sessions` entry (contract §8). */
export function sessionEntry(relay: Relay, s: ListRow, lc: ListContext = listContext(relay)) {
  const tasks = (lc.tasksBySession ? (lc.tasksBySession.get(s.id) ?? []) : lc.tasks.filter((t) => t.session_id === s.id)).map(taskSummary);
  return {
    id: s.id,
    title: s.title,
    provider: s.provider,
    model: s.model,
    effort: s.effort,
    mode: s.mode,
    state: lc.busy.has(s.id) ? "running_turn" : tasks.length ? "background_only" : "idle",
    cwd: s.cwd,
    // Claude Cloud: its repository and branch; a worktree session (contract §10.1): its branch.
    ...(s.repo ? { repo: s.repo, branch: s.branch } : s.branch ? { branch: s.branch } : {}),
    lastActivityAt: iso(s.last_activity_at),
    messageCount: s.message_count,
    tasks,
    group: listGroup(relay, s, lc),
    mayCreateSessions: !!s.may_create_sessions,
    viaAgent: s.via_session ? { session: s.via_session, title: starterTitle(relay, s.via_session, lc) } : null,
    watched: relay.watching?.isWatched(s.id) ?? false,
    watching: relay.watching?.watchingCount(s.id) ?? 0,
    ...(s.archived_at ? { archived: true } : {}),
  };
}

export function pendingQuestions(relay: Relay, sessionId: string) {
  return relay.questions.pending(sessionId).map(questionView);
}
