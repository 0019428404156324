import type { Db } from "../store/db.ts";
import { fromJson, toJson } from "../store/db.ts";
import type { Clock } from "../core/clock.ts";
import { newId, newToken } from "../core/ids.ts";
import type { FromInfo, MessageRow, Mode, Role, SessionRow, SessionState, TaskRow, TurnRow } from "./types.ts";

export interface NewSession {
  provider: string;
  model: string;
  effort?: string | null;
  mode?: Mode;
  cwd: string;
  title?: string | null;
  repo?: string | null;
  branch?: string | null;
  viaSession?: string | null;
  mayCreateSessions?: boolean;
  groupId?: string | null;
}

/** What a session's state needs of its background tasks (tasks/task-store.ts owns them). */
export interface SessionTasks {
  tasksOf(sessionId: string): TaskRow[];
}

export interface SessionStoreDeps {
  db: Db;
  clock: Clock;
  tasks: SessionTasks;
}

/** Reads and writes sessions, messages and turns. No business rules here: callers run these
 * inside their own transactions. */
export class SessionStore {
  private q;
  readonly db: Db;
  private clock: Clock;
  private tasks: SessionTasks;

  constructor(d: SessionStoreDeps) {
    const { db } = d;
    this.db = db;
    this.clock = d.clock;
    this.tasks = d.tasks;
    this.q = {
      get: db.prepare("SELECT * FROM sessions WHERE id = ? AND deleted_at IS NULL"),
      byToken: db.prepare("SELECT * FROM sessions WHERE agent_token = ? AND deleted_at IS NULL"),
      insert:
        db.prepare(`INSERT INTO sessions (id, title, provider, model, effort, mode, cwd, repo, branch, agent_token,
        via_session, may_create_sessions, group_id, created_at, last_activity_at)
        VALUES (@id, @title, @provider, @model, @effort, @mode, @cwd, @repo, @branch, @agent_token,
        @via_session, @may_create_sessions, @group_id, @created_at, @last_activity_at)`),
      touch: db.prepare("UPDATE sessions SET last_activity_at = ? WHERE id = ?"),
      insertMessage:
        db.prepare(`INSERT INTO messages (id, session_id, seq, role, text, from_json, meta_json, turn_id, created_at)
        VALUES (?, ?, (SELECT message_count + 1 FROM sessions WHERE id = ?), ?, ?, ?, ?, ?, ?)`),
      countMessage: db.prepare(
        "UPDATE sessions SET message_count = message_count + 1, last_activity_at = ? WHERE id = ?",
      ),
      messages: db.prepare("SELECT * FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT ?"),
      message: db.prepare("SELECT * FROM messages WHERE id = ?"),
      turn: db.prepare("SELECT * FROM turns WHERE id = ?"),
      markPrompted: db.prepare("UPDATE turns SET prompted_at = ? WHERE id = ?"),
      turnByMessage: db.prepare("SELECT * FROM turns WHERE message_id = ?"),
      activeTurns: db.prepare(
        "SELECT * FROM turns WHERE session_id = ? AND status IN ('queued','running') ORDER BY queued_at, rowid",
      ),
      allActive: db.prepare("SELECT DISTINCT session_id FROM turns WHERE status IN ('queued','running')"),
      groupIdOf: db.prepare("SELECT group_id FROM sessions WHERE id = ?").pluck(),
      membersOf: db.prepare(
        "SELECT * FROM sessions WHERE group_id = ? AND id != ? AND deleted_at IS NULL ORDER BY last_activity_at DESC LIMIT ?",
      ),
      eldestIn: db
        .prepare(
          "SELECT id FROM sessions WHERE group_id = ? AND deleted_at IS NULL AND id != ? ORDER BY created_at, rowid LIMIT 1",
        )
        .pluck(),
      countIn: db.prepare("SELECT COUNT(*) AS n FROM sessions WHERE group_id = ? AND deleted_at IS NULL").pluck(),
      moveStarted: db.prepare("UPDATE sessions SET via_session = ? WHERE via_session = ?"),
    };
  }

  get(id: string): SessionRow | undefined {
    return this.q.get.get(id) as SessionRow | undefined;
  }

  byToken(token: string): SessionRow | undefined {
    return this.q.byToken.get(token) as SessionRow | undefined;
  }

  create(s: NewSession): SessionRow {
    const now = this.clock.now();
    const row = {
      id: newId("ses"),
      title: s.title?.trim() || "New session",
      provider: s.provider,
      model: s.model,
      effort: s.effort ?? null,
      mode: s.mode ?? "agent",
      cwd: s.cwd,
      repo: s.repo ?? null,
      branch: s.branch ?? null,
      agent_token: newToken(),
      via_session: s.viaSession ?? null,
      may_create_sessions: s.mayCreateSessions ? 1 : 0,
      group_id: s.groupId ?? null,
      created_at: now,
      last_activity_at: now,
    };
    this.q.insert.run(row);
    return this.get(row.id)!;
  }

  update(
    id: string,
    patch: Partial<
      Pick<
        SessionRow,
        | "title"
        | "model"
        | "effort"
        | "mode"
        | "cwd"
        | "group_id"
        | "may_create_sessions"
        | "acp_session_id"
        | "provider"
        | "extra_json"
        | "archived_at"
        | "deleted_at"
        | "branch"
      >
    >,
  ): void {
    const keys = Object.keys(patch);
    if (!keys.length) return;
    this.db
      .prepare(`UPDATE sessions SET ${keys.map((k) => `${k} = @${k}`).join(", ")} WHERE id = @id`)
      .run({ ...patch, id });
  }

  touch(id: string): void {
    this.q.touch.run(this.clock.now(), id);
  }

  addMessage(
    sessionId: string,
    role: Role,
    text: string,
    opts: { from?: FromInfo | null; meta?: Record<string, unknown> | null; turnId?: string | null } = {},
  ): MessageRow {
    const id = newId("msg");
    const now = this.clock.now();
    this.q.insertMessage.run(
      id,
      sessionId,
      sessionId,
      role,
      text,
      toJson(opts.from),
      toJson(opts.meta),
      opts.turnId ?? null,
      now,
    );
    this.q.countMessage.run(now, sessionId);
    return this.q.message.get(id) as MessageRow;
  }

  message(id: string): MessageRow | undefined {
    return this.q.message.get(id) as MessageRow | undefined;
  }

  /** The latest `last` messages, oldest first. */
  messages(sessionId: string, last = 1_000_000): MessageRow[] {
    return (this.q.messages.all(sessionId, last) as MessageRow[]).reverse();
  }

  turn(id: string): TurnRow | undefined {
    return this.q.turn.get(id) as TurnRow | undefined;
  }

  /** The turn's prompt goes to its agent now (Turns.recover tells the two cases apart). */
  markPrompted(turnId: string, at: number): void {
    this.q.markPrompted.run(at, turnId);
  }

  turnByMessage(messageId: string): TurnRow | undefined {
    return this.q.turnByMessage.get(messageId) as TurnRow | undefined;
  }

  activeTurns(sessionId: string): TurnRow[] {
    return this.q.activeTurns.all(sessionId) as TurnRow[];
  }

  /** Session ids with a queued or running turn. */
  busySessions(): Set<string> {
    return new Set((this.q.allActive.all() as { session_id: string }[]).map((r) => r.session_id));
  }

  /** The group a session is in, deleted sessions too (a deleted one is leaving it). */
  groupIdOf(sessionId: string): string | null {
    return (this.q.groupIdOf.get(sessionId) as string | null | undefined) ?? null;
  }

  /** A group's undeleted sessions but one, most recently active first. */
  membersOf(groupId: string, except: string, limit: number): SessionRow[] {
    return this.q.membersOf.all(groupId, except, limit) as SessionRow[];
  }

  /** The longest-standing undeleted session of a group but one (its next head). */
  eldestIn(groupId: string, except: string): string | undefined {
    return this.q.eldestIn.get(groupId, except) as string | undefined;
  }

  /** How many undeleted sessions a group has. */
  countIn(groupId: string): number {
    return this.q.countIn.get(groupId) as number;
  }

  /** Compaction: the sessions one conversation started now name its successor as starter. */
  moveStarted(from: string, to: string): void {
    this.q.moveStarted.run(to, from);
  }

  state(sessionId: string, busy?: Set<string>, tasks?: TaskRow[]): SessionState {
    const isBusy = busy ? busy.has(sessionId) : this.activeTurns(sessionId).length > 0;
    if (isBusy) return "running_turn";
    const running = (tasks ?? this.tasks.tasksOf(sessionId)).some(
      (t) => t.session_id === sessionId && t.status === "running",
    );
    return running ? "background_only" : "idle";
  }
}

export const messageFrom = (m: MessageRow) => fromJson<FromInfo | null>(m.from_json, null);
