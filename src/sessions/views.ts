import { iso } from "../core/clock.ts";
import { fromJson } from "../store/db.ts";
import { questionView, type QuestionRow } from "../questions/ask-user.ts";
import type { MessageRow, TaskRow } from "./types.ts";
import { groupName, groupOf, liveGroupsByIds, type GroupReads, type GroupRow } from "../groups/groups.ts";
import type { ListRow } from "./list-query.ts";
import type { SessionStore } from "./session-store.ts";
import { titlesOf } from "./titles.ts";
import { taskSummary } from "../tasks/task-summary.ts";

// How sessions, messages and tasks look in results and in the owner API.

export { taskSummary };

/** What a list entry reads beyond its row: who is busy, running tasks, groups, starters'
 * titles (a paired relay's too), watch badges. */
export interface ViewDeps extends GroupReads {
  sessions: Pick<SessionStore, "get" | "busySessions">;
  tasks: { runningTasks(): TaskRow[] };
  pairing: { remoteTitle(sessionId: string): string | null };
  /** The list badges (watching's port). */
  watching?: { isWatched(sessionId: string): boolean; watchingCount(sessionId: string): number };
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

export function listContext(d: ViewDeps, rows?: ListRow[]): ListContext {
  const lc: ListContext = { busy: d.sessions.busySessions(), tasks: d.tasks.runningTasks() };
  if (!rows) return lc;
  lc.tasksBySession = new Map();
  for (const t of lc.tasks) {
    const list = lc.tasksBySession.get(t.session_id);
    if (list) list.push(t);
    else lc.tasksBySession.set(t.session_id, [t]);
  }
  // Only the groups and titles this page names: a page costs the same at any store size.
  const groupIds = [...new Set(rows.map((r) => r.group_id).filter((g): g is string => !!g))];
  lc.groups = liveGroupsByIds(d, groupIds);
  lc.titles = new Map(rows.map((r) => [r.id, r.title]));
  const wanted = new Set<string>();
  for (const r of rows) if (r.via_session && !lc.titles.has(r.via_session)) wanted.add(r.via_session);
  for (const g of lc.groups.values())
    if (!g.name && g.head_session && !lc.titles.has(g.head_session)) wanted.add(g.head_session);
  if (wanted.size) for (const [id, title] of titlesOf(d.db, [...wanted])) lc.titles.set(id, title);
  return lc;
}

/** groupOf, from the list's lookups when it has them. */
function listGroup(d: ViewDeps, s: ListRow, lc: ListContext): ReturnType<typeof groupOf> {
  if (!lc.groups) return groupOf(d, s);
  const g = s.group_id ? lc.groups.get(s.group_id) : undefined;
  if (!g) return null;
  const name = g.name || (g.head_session && lc.titles?.get(g.head_session)) || groupName(d, g);
  return { id: g.id, name, role: g.head_session === s.id ? "head" : "member" };
}

function starterTitle(d: ViewDeps, id: string, lc: ListContext): string | null {
  return lc.titles?.get(id) ?? d.sessions.get(id)?.title ?? d.pairing.remoteTitle(id);
}

/** A `list_sessions` entry (contract §8). */
export function sessionEntry(d: ViewDeps, s: ListRow, lc: ListContext = listContext(d)) {
  const tasks = (
    lc.tasksBySession ? (lc.tasksBySession.get(s.id) ?? []) : lc.tasks.filter((t) => t.session_id === s.id)
  ).map(taskSummary);
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
    group: listGroup(d, s, lc),
    mayCreateSessions: !!s.may_create_sessions,
    viaAgent: s.via_session ? { session: s.via_session, title: starterTitle(d, s.via_session, lc) } : null,
    watched: d.watching?.isWatched(s.id) ?? false,
    watching: d.watching?.watchingCount(s.id) ?? 0,
    ...(s.archived_at ? { archived: true } : {}),
  };
}

export function pendingQuestions(d: { questions: { pending(sessionId: string): QuestionRow[] } }, sessionId: string) {
  return d.questions.pending(sessionId).map(questionView);
}
