// The worktrees table: one row per worktree session, kept after its folder is removed (its
// branch may still wait for a merge). Only this domain reads or writes it.
import type { Db } from "../store/db.ts";

export interface WorktreeRow {
  session_id: string;
  repo: string;
  path: string;
  branch: string;
  base: string;
  base_commit: string;
  made_branch: number;
  created_at: number;
  removed_at: number | null;
  merged_at: number | null;
  merged_into: string | null;
  merged_commit: string | null;
  branch_deleted_at: number | null;
}

/** contract §10.1 `worktree: { repo, path, branch, base, baseCommit }`. */
export interface WorktreeView {
  repo: string;
  path: string;
  branch: string;
  base: string;
  baseCommit: string;
}

export const worktreeView = (r: WorktreeRow): WorktreeView => ({
  repo: r.repo,
  path: r.path,
  branch: r.branch,
  base: r.base,
  baseCommit: r.base_commit,
});

export class WorktreeStore {
  constructor(private readonly db: Db) {}

  insert(
    r: Omit<WorktreeRow, "removed_at" | "merged_at" | "merged_into" | "merged_commit" | "branch_deleted_at">,
  ): void {
    this.db
      .prepare(`INSERT INTO worktrees (session_id, repo, path, branch, base, base_commit, made_branch, created_at)
        VALUES (@session_id, @repo, @path, @branch, @base, @base_commit, @made_branch, @created_at)`)
      .run(r);
  }

  get(sessionId: string): WorktreeRow | undefined {
    return this.db.prepare("SELECT * FROM worktrees WHERE session_id = ?").get(sessionId) as WorktreeRow | undefined;
  }

  /** Worktrees whose folder still exists, of one repository (or all). */
  live(repo?: string): WorktreeRow[] {
    return (
      repo === undefined
        ? this.db.prepare("SELECT * FROM worktrees WHERE removed_at IS NULL ORDER BY created_at").all()
        : this.db.prepare("SELECT * FROM worktrees WHERE repo = ? AND removed_at IS NULL ORDER BY created_at").all(repo)
    ) as WorktreeRow[];
  }

  /** The live worktree at `path`, if the relay made one there. */
  byPath(path: string): WorktreeRow | undefined {
    return this.db.prepare("SELECT * FROM worktrees WHERE path = ? AND removed_at IS NULL").get(path) as
      | WorktreeRow
      | undefined;
  }

  markRemoved(sessionId: string, at: number): void {
    this.db
      .prepare("UPDATE worktrees SET removed_at = ? WHERE session_id = ? AND removed_at IS NULL")
      .run(at, sessionId);
  }

  markMerged(sessionId: string, into: string, commit: string, at: number): void {
    this.db
      .prepare("UPDATE worktrees SET merged_at = ?, merged_into = ?, merged_commit = ? WHERE session_id = ?")
      .run(at, into, commit, sessionId);
  }

  markBranchDeleted(sessionId: string, at: number): void {
    this.db.prepare("UPDATE worktrees SET branch_deleted_at = ? WHERE session_id = ?").run(at, sessionId);
  }
}
