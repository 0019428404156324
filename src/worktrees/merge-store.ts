// The merge queue as stored: every merge asked, in the order asked, with its outcome. A
// restart finds the queue here (and a merge that was running, to be redone).
import { iso } from "../core/clock.ts";
import type { ErrorCode } from "../core/errors.ts";
import type { Db } from "../store/db.ts";
import type { TestCounts } from "../tasks/test-counts.ts";

export type MergeOutcome =
  | {
      status: "merged";
      commit: string;
      fastForward: boolean;
      upToDate?: boolean;
      updatedFolder?: string;
      counts?: TestCounts;
    }
  | { status: "conflict"; files: string[] }
  | {
      status: "tests_failed";
      tail: string[];
      truncated: boolean;
      counts?: TestCounts;
      exitCode: number | null;
      stopped?: string;
    }
  | { status: "refused"; code: ErrorCode; error: string };

export type MergeStatus = "queued" | "running" | MergeOutcome["status"];

export interface MergeRow {
  seq: number;
  id: string;
  repo: string;
  session_id: string;
  branch: string;
  into_branch: string;
  test: string | null;
  status: MergeStatus;
  result_json: string | null;
  test_pgid: number | null;
  asked_at: number;
  started_at: number | null;
  ended_at: number | null;
}

export interface MergeView {
  id: string;
  session: string;
  repo: string;
  branch: string;
  into: string;
  test: string | null;
  status: MergeStatus;
  askedAt: string;
  startedAt: string | null;
  endedAt: string | null;
  result: MergeOutcome | null;
}

export const mergeView = (r: MergeRow): MergeView => ({
  id: r.id,
  session: r.session_id,
  repo: r.repo,
  branch: r.branch,
  into: r.into_branch,
  test: r.test,
  status: r.status,
  askedAt: iso(r.asked_at)!,
  startedAt: iso(r.started_at),
  endedAt: iso(r.ended_at),
  result: r.result_json ? (JSON.parse(r.result_json) as MergeOutcome) : null,
});

export class MergeStore {
  constructor(private readonly db: Db) {}

  insert(r: Pick<MergeRow, "id" | "repo" | "session_id" | "branch" | "into_branch" | "test" | "asked_at">): void {
    this.db
      .prepare(
        "INSERT INTO merges (id, repo, session_id, branch, into_branch, test, status, asked_at) VALUES (@id, @repo, @session_id, @branch, @into_branch, @test, 'queued', @asked_at)",
      )
      .run(r);
  }

  get(id: string): MergeRow | undefined {
    return this.db.prepare("SELECT * FROM merges WHERE id = ?").get(id) as MergeRow | undefined;
  }

  next(repo: string): MergeRow | undefined {
    return this.db
      .prepare("SELECT * FROM merges WHERE repo = ? AND status = 'queued' ORDER BY seq LIMIT 1")
      .get(repo) as MergeRow | undefined;
  }

  /** 0 while it runs, 1 when it is next, … */
  position(r: MergeRow): number {
    if (r.status === "running") return 0;
    const ahead = this.db
      .prepare("SELECT COUNT(*) AS n FROM merges WHERE repo = ? AND status IN ('queued', 'running') AND seq < ?")
      .get(r.repo, r.seq) as { n: number };
    return (
      ahead.n + (this.db.prepare("SELECT 1 FROM merges WHERE repo = ? AND status = 'running'").get(r.repo) ? 0 : 1)
    );
  }

  /** Queued and running merges of a repository (or every one), in order. */
  waiting(repo?: string): MergeRow[] {
    return (
      repo === undefined
        ? this.db.prepare("SELECT * FROM merges WHERE status IN ('queued', 'running') ORDER BY seq").all()
        : this.db
            .prepare("SELECT * FROM merges WHERE repo = ? AND status IN ('queued', 'running') ORDER BY seq")
            .all(repo)
    ) as MergeRow[];
  }

  /** Merges of a session, newest first. */
  ofSession(sessionId: string, limit = 20): MergeRow[] {
    return this.db
      .prepare("SELECT * FROM merges WHERE session_id = ? ORDER BY seq DESC LIMIT ?")
      .all(sessionId, limit) as MergeRow[];
  }

  started(id: string, at: number): void {
    this.db.prepare("UPDATE merges SET status = 'running', started_at = ?, test_pgid = NULL WHERE id = ?").run(at, id);
  }

  testStarted(id: string, pgid: number): void {
    this.db.prepare("UPDATE merges SET test_pgid = ? WHERE id = ?").run(pgid, id);
  }

  settled(id: string, outcome: MergeOutcome, at: number): void {
    this.db
      .prepare("UPDATE merges SET status = ?, result_json = ?, ended_at = ?, test_pgid = NULL WHERE id = ?")
      .run(outcome.status, JSON.stringify(outcome), at, id);
  }

  /** A merge that was running when the relay stopped goes back to the front of its queue. */
  requeue(id: string): void {
    this.db.prepare("UPDATE merges SET status = 'queued', started_at = NULL, test_pgid = NULL WHERE id = ?").run(id);
  }
}
