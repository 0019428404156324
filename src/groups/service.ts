import type { Clock } from "../core/clock.ts";
import type { Db } from "../store/db.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import type { SessionRow } from "../sessions/types.ts";
import {
  createGroup,
  groupOf,
  groupRow,
  joinStarterGroup,
  liveGroupsByIds,
  moveHead,
  type GroupRef,
  type GroupRow,
} from "./groups.ts";
import { findGroup, findGroupForCreate, recheckGroup, resolveGroupForUpdate } from "./find.ts";
import { allGroups, groupsInfo, type ListDeps } from "./list.ts";
import { moveToGroup } from "./lifetime.ts";
import { groupMembers } from "./members.ts";
import { dissolveGroup, liveGroupIds, moveByHand, renameGroup } from "./owner-edits.ts";
import { groupSessions } from "../sessions/group-sessions.ts";

/** What the groups domain needs: its table, the clock, the sessions it groups, and which
 * relay this is (refusals name it; relay_info's groups depend on its version). */
export interface GroupsDeps {
  db: Db;
  clock: Pick<Clock, "now">;
  sessions: Pick<
    SessionStore,
    "get" | "update" | "countIn" | "groupIdOf" | "eldestIn" | "busySessions" | "membersOf" | "state"
  >;
  identity: { readonly name: string; readonly version: string };
}

/** Session groups as the action path uses them (issue 19): the functions of this folder with
 * their deps bound once, so callers hold no database. Writes run inside the caller's transaction. */
export class Groups {
  constructor(private readonly d: GroupsDeps) {}

  private get list(): ListDeps {
    const { db, sessions, identity } = this.d;
    return { db, sessions, name: identity.name, version: identity.version };
  }

  /** A live (not dissolved) group by id. */
  row(id: string | null): GroupRow | undefined {
    return groupRow(this.d, id);
  }

  /** A session's group and its role there, or null. */
  of(s: Pick<SessionRow, "id" | "group_id">) {
    return groupOf(this.d, s);
  }

  liveByIds(ids: readonly string[]): Map<string, GroupRow> {
    return liveGroupsByIds(this.d, ids);
  }

  /** read_session's group: the session's place and the other members. */
  members(s: SessionRow) {
    return groupMembers(this.d, s);
  }

  all() {
    return allGroups(this.d);
  }

  /** relay_info's `groups`. */
  info() {
    return groupsInfo(this.list);
  }

  find(ref: string, tail?: string): GroupRef {
    return findGroup(this.list, ref, tail);
  }

  findForCreate(ref: string): GroupRef {
    return findGroupForCreate(this.list, ref);
  }

  resolveForUpdate(ref: string, tail: string): GroupRef | { create: string } {
    return resolveGroupForUpdate(this.list, ref, tail);
  }

  recheck(group: GroupRef, tail?: string): void {
    recheckGroup(this.list, group, tail);
  }

  create(opts: { name: string | null; by: "owner" | "agent"; head?: string | null }): GroupRow {
    return createGroup(this.d, opts);
  }

  /** Into a group, or out of any with null; the group it left is tidied (lifetime.ts). */
  moveTo(sessionId: string, groupId: string | null): void {
    moveToGroup(this.d, sessionId, groupId);
  }

  joinStarter(starter: SessionRow, sessionId: string): void {
    joinStarterGroup(this.d, starter, sessionId);
  }

  /** Compaction: the groups one conversation headed are headed by its successor. */
  moveHead(from: string, to: string): void {
    moveHead(this.d, from, to);
  }

  // ---- what the owner does by hand (api/groups.ts, owner-edits.ts) ----

  /** The groups not dissolved, oldest first. */
  liveIds(): string[] {
    return liveGroupIds(this.d);
  }

  /** A group's undeleted sessions, oldest first. */
  sessionsIn(id: string): { id: string; title: string }[] {
    return groupSessions(this.d.db, id);
  }

  rename(id: string, name: string): void {
    renameGroup(this.d, id, name);
  }

  /** The group ends and its sessions leave it, in one transaction. */
  dissolve(id: string): void {
    dissolveGroup(this.d, id);
  }

  /** moveTo in its own transaction (null moves the session out). */
  moveByHand(sessionId: string, groupId: string | null): void {
    moveByHand(this.d, sessionId, groupId);
  }
}
