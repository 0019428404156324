// Parallel work in one repository (contract §10.1), as one object the composition root builds
// from what it names below and the surfaces call through functions: worktrees (lifecycle),
// changes, overlaps, claims and the merge queue. Nothing here knows relay_tool or HTTP.
import { realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { Clock } from "../core/clock.ts";
import { isInside } from "../core/paths.ts";
import type { Db } from "../store/db.ts";
import { changesOf, type Changes, type ChangesWithDiff } from "./changes.ts";
import { Claims } from "./claims.ts";
import type { Git } from "./git-run.ts";
import { KeyedLock } from "./keyed-lock.ts";
import { WorktreeLifecycle, type Removal } from "./lifecycle.ts";
import { MergeQueue } from "./merge-queue.ts";
import type { MergeView } from "./merge-store.ts";
import { OverlapWatch, type Overlap } from "./overlap-watch.ts";
import { worktreeView, type WorktreeView } from "./worktree-store.ts";

export interface WorktreesDeps {
  db: Db;
  clock: Clock;
  git: Git;
  dataDir: string;
  /** The relay's name: merge commits are signed `OAR relay <name>` where a repository has no identity. */
  relayName: string;
  titleOf(sessionId: string): string | null;
  mask?(text: string): string;
  mergeTestTimeoutMs?: number;
  onOverlap?(o: Overlap): void;
  onMergeSettled?(m: MergeView): void;
  /** When the next spare may be made after `sessionId` took one (default: at once). */
  spareAfter?(sessionId: string): Promise<void>;
}

export class Worktrees {
  readonly lifecycle: WorktreeLifecycle;
  readonly overlaps: OverlapWatch;
  readonly claims: Claims;
  readonly merges: MergeQueue;

  constructor(private readonly d: WorktreesDeps) {
    this.lifecycle = new WorktreeLifecycle(d);
    this.claims = new Claims(d);
    const landing = new KeyedLock();
    this.overlaps = new OverlapWatch({ ...d, worktrees: this.lifecycle.store, onOverlap: d.onOverlap, landing });
    this.merges = new MergeQueue({
      ...d,
      lifecycle: this.lifecycle,
      claims: this.claims,
      testTimeoutMs: d.mergeTestTimeoutMs,
      onSettled: d.onMergeSettled,
      landing,
    });
  }

  /** The session's `worktree`, or null for a session without one. */
  view(sessionId: string): WorktreeView | null {
    const row = this.lifecycle.store.get(sessionId);
    return row ? worktreeView(row) : null;
  }

  /** `changes` of a worktree session whose folder is still there; null otherwise. */
  changes(sessionId: string): Promise<Changes | null>;
  changes(sessionId: string, opts: { diff: true }): Promise<ChangesWithDiff | null>;
  async changes(sessionId: string, opts: { diff?: boolean } = {}): Promise<Changes | ChangesWithDiff | null> {
    const row = this.lifecycle.store.get(sessionId);
    if (!row || row.removed_at !== null) return null;
    const ref = { path: row.path, base: row.base, baseCommit: row.base_commit };
    return opts.diff ? changesOf(this.d.git, ref, { diff: true }) : changesOf(this.d.git, ref);
  }

  /** The session was archived or deleted: its claims end, its worktree goes when nothing
   * uncommitted is in it (`note` says what was kept). */
  async ended(sessionId: string, reason: "archived" | "deleted"): Promise<Removal | null> {
    this.claims.endFor(sessionId, reason);
    const removal = await this.lifecycle.remove(sessionId);
    if (removal?.removed) this.overlaps.forget(sessionId);
    return removal;
  }

  /** Which repository a file the relay is asked to write lies in, and its path there (for
   * claims): inside a live worktree, or inside a repository that has a live claim. */
  whereIs(file: string): { repo: string; path: string } | null {
    const abs = realPathOf(resolve(file));
    for (const w of this.lifecycle.store.live())
      if (isInside(w.path, abs)) return { repo: w.repo, path: abs.slice(w.path.length + 1) };
    for (const repo of this.claims.repos()) if (isInside(repo, abs)) return { repo, path: abs.slice(repo.length + 1) };
    return null;
  }

  async start(): Promise<void> {
    for (const repo of new Set(this.lifecycle.store.live().map((w) => w.repo)))
      void this.lifecycle.spares.warm(repo).catch(() => {});
    await this.merges.resume();
  }

  async close(): Promise<void> {
    this.lifecycle.spares.stop();
    await this.merges.close();
  }
}

/** The real path of `file`, also when it (or folders above it) do not exist yet: the nearest
 * folder that exists is resolved (symbolic links), the rest is kept as given. */
function realPathOf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    const parent = dirname(file);
    return parent === file ? file : join(realPathOf(parent), basename(file));
  }
}
