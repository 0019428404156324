// A worktree session's checkout from start to end (contract §10.1): `plan` checks a folder
// and a branch before anything is made (so a refusal changes nothing), `create` makes the
// worktree once the session has its id, `remove` takes the folder away only when nothing
// uncommitted is in it, and a branch the relay made is deleted only once it is merged.
import { existsSync } from "node:fs";
import { gitWords } from "../cloud/git.ts";
import type { Clock } from "../core/clock.ts";
import { RelayError } from "../core/errors.ts";
import type { Db } from "../store/db.ts";
import { isBranchName, relayBranchName } from "./branch-name.ts";
import { RepoFolders } from "./folders.ts";
import { yes, type Git } from "./git-run.ts";
import { statusOf } from "./status.ts";
import { KeyedLock } from "./keyed-lock.ts";
import { findRepo } from "./repo.ts";
import { NO_HOOKS, Spares } from "./spares.ts";
import { checkouts, holderOf, type Checkout } from "./worktree-list.ts";
import { WorktreeStore, worktreeView, type WorktreeRow, type WorktreeView } from "./worktree-store.ts";

export interface LifecycleDeps {
  db: Db;
  clock: Clock;
  git: Git;
  dataDir: string;
  /** A session's title, to name the session holding a branch; null when unknown. */
  titleOf(sessionId: string): string | null;
  /** Shared with the merge queue: one repository's checkouts change one at a time. */
  lock?: KeyedLock;
  /** When the next spare may be made after `sessionId` took one (default: at once). */
  spareAfter?(sessionId: string): Promise<void>;
}

export interface WorktreePlan {
  repo: string;
  /** null: the relay names the branch once the session has its id. */
  branch: string | null;
  /** The branch exists already (it is checked out, not made). */
  exists: boolean;
  /** What a new branch starts at: the folder's HEAD. */
  startCommit: string;
  base: string;
  baseCommit: string;
}

export interface Removal {
  /** The folder is gone. */
  removed: boolean;
  path: string;
  /** Uncommitted changes that kept the folder (a few paths), when kept for them. */
  uncommitted?: { count: number; paths: string[] };
  branch: string;
  branchDeleted: boolean;
  /** One or two sentences for the answer: what was kept and why. */
  note: string;
}

const MAX_BRANCH = 250;

export class WorktreeLifecycle {
  readonly store: WorktreeStore;
  readonly folders: RepoFolders;
  readonly spares: Spares;
  readonly lock: KeyedLock;

  constructor(private readonly d: LifecycleDeps) {
    this.store = new WorktreeStore(d.db);
    this.folders = new RepoFolders(d.dataDir);
    this.lock = d.lock ?? new KeyedLock();
    this.spares = new Spares({ git: d.git, folders: this.folders, lock: this.lock });
  }

  /** Checks `folder` and `branch` (left out: the relay names it) before a session is made. */
  async plan(folder: string, branch?: string | null, nothing = "Nothing was created."): Promise<WorktreePlan> {
    const { git } = this.d;
    const on = branch ? ` on branch "${branch}"` : "";
    // Both questions at once (each is a git process): the repository, and where that branch
    // is (refs are the same from every checkout of it).
    const valid = !!branch && branch.length <= MAX_BRANCH && isBranchName(branch);
    const [found, tip] = await Promise.all([
      findRepo(git, folder),
      valid ? git(["rev-parse", "-q", "--verify", `refs/heads/${branch}^{commit}`], { cwd: folder }) : null,
    ]);
    if (!found.ok)
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `${found.reason}, so a session there cannot work in a worktree${on}. ${nothing}`,
      );
    const { main, head, checkouts: list } = found.repo;
    if (!head.commit)
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `The repository at ${main} has no commit yet; a worktree${on} needs one to start from. ${nothing}`,
      );
    const base = head.branch ?? head.commit;
    if (!branch)
      return { repo: main, branch: null, exists: false, startCommit: head.commit, base, baseCommit: head.commit };
    if (!valid) {
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `"${branch.slice(0, 80)}" is not a valid git branch name. ${nothing}`,
      );
    }
    this.refuseHeld(branch, list, nothing);
    if (!tip?.ok) return { repo: main, branch, exists: false, startCommit: head.commit, base, baseCommit: head.commit };
    const mb = await git(["merge-base", head.commit, tip.stdout.trim()], { cwd: main });
    return {
      repo: main,
      branch,
      exists: true,
      startCommit: head.commit,
      base,
      baseCommit: mb.ok ? mb.stdout.trim() : head.commit,
    };
  }

  /** Makes the worktree of a planned session; its folder is the session's cwd. */
  async create(
    plan: WorktreePlan,
    session: { id: string; title: string },
    nothing = "Nothing was created.",
  ): Promise<WorktreeView> {
    const { git, clock } = this.d;
    const repo = plan.repo;
    const branch = plan.branch ?? relayBranchName(session.title, session.id);
    const row = await this.lock.run(repo, async () => {
      const path = this.folders.freshFor(repo, branch);
      const made = await this.checkout(repo, branch, plan.startCommit, path);
      if ("error" in made) {
        // Most likely another session took the branch since the plan: name it.
        this.refuseHeld(branch, await checkouts(git, repo), nothing);
        throw new RelayError(
          "REMOTE_RELAY_INVALID_INPUT",
          `git could not make a worktree of ${repo} on branch "${branch}": ${made.error}. ${nothing}`,
        );
      }
      const r: WorktreeRow = {
        session_id: session.id,
        repo,
        path,
        branch,
        base: plan.base,
        base_commit: plan.baseCommit,
        made_branch: made.madeBranch ? 1 : 0,
        created_at: clock.now(),
        removed_at: null,
        merged_at: null,
        merged_into: null,
        merged_commit: null,
        branch_deleted_at: null,
      };
      this.store.insert(r);
      return r;
    });
    void this.spares.refill(repo, plan.startCommit, this.d.spareAfter?.(session.id));
    return worktreeView(row);
  }

  /** Checks `branch` out at `path`: made at `start` when it does not exist (a compare-and-swap
   * that fails when it does), from the spare when one is ready — at the spare's own commit
   * one `git switch -c` makes the branch and points HEAD at it, no file touched — else a fresh
   * checkout. Git itself refuses a branch checked out in another folder. */
  private async checkout(
    repo: string,
    branch: string,
    start: string,
    path: string,
  ): Promise<{ madeBranch: boolean } | { error: string }> {
    const { git } = this.d;
    const spare = this.spares.ready(repo);
    if (spare?.commit === start) {
      // Fails, touching nothing, when the branch exists: then it is checked out as below.
      const made = await git([...NO_HOOKS, "switch", "-q", "-c", branch], { cwd: spare.path });
      if (made.ok) return this.takeSpare(repo, spare.path, path, branch, start, true);
    }
    const madeBranch = (await git(["update-ref", `refs/heads/${branch}`, start, ""], { cwd: repo })).ok;
    if (spare) {
      const sw = await git(["switch", "-q", "--no-guess", branch], { cwd: spare.path, timeoutMs: 10 * 60_000 });
      // An existing branch git would not check out (another folder has it): the spare stays as it was.
      if (!sw.ok && !madeBranch) return { error: gitWords(sw) };
      if (sw.ok) return this.takeSpare(repo, spare.path, path, branch, start, madeBranch);
      this.spares.taken(repo);
      await this.spares.discard(repo, spare.path);
    }
    return this.addFresh(repo, branch, start, path, madeBranch);
  }

  /** The spare (now on `branch`) becomes the session's folder; one that would not move is not
   * used again, and the worktree is made fresh. */
  private async takeSpare(
    repo: string,
    spare: string,
    path: string,
    branch: string,
    start: string,
    madeBranch: boolean,
  ): Promise<{ madeBranch: boolean } | { error: string }> {
    this.spares.taken(repo);
    if (await this.spares.move(repo, spare, path)) return { madeBranch };
    await this.spares.discard(repo, spare);
    return this.addFresh(repo, branch, start, path, madeBranch);
  }

  private async addFresh(
    repo: string,
    branch: string,
    start: string,
    path: string,
    madeBranch: boolean,
  ): Promise<{ madeBranch: boolean } | { error: string }> {
    const { git } = this.d;
    const r = await git(["worktree", "add", "-q", path, branch], { cwd: repo, timeoutMs: 10 * 60_000 });
    if (r.ok) return { madeBranch };
    if (madeBranch) await git(["update-ref", "-d", `refs/heads/${branch}`, start], { cwd: repo });
    return { error: gitWords(r) };
  }

  private refuseHeld(branch: string, list: Checkout[], nothing: string): void {
    const holder = holderOf(list, branch);
    if (!holder) return;
    const row = this.store.byPath(holder.path);
    const title = row ? this.d.titleOf(row.session_id) : null;
    const who = row ? ` by session ${title !== null ? `"${title}" ` : ""}(${row.session_id})` : "";
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `Branch "${branch}" is already checked out in ${holder.path}${who}; a branch can be checked out in one folder only. ${nothing}`,
      row ? { holder: { session: row.session_id, title } } : {},
    );
  }

  /** Archive or delete: the folder goes only when nothing uncommitted is in it; the branch
   * stays until it is merged. Null when the session has no worktree. */
  async remove(sessionId: string): Promise<Removal | null> {
    const row = this.store.get(sessionId);
    if (!row) return null;
    return this.lock.run(row.repo, async () => {
      const { git, clock } = this.d;
      const sentences: string[] = [];
      let uncommitted: Removal["uncommitted"];
      let removed = row.removed_at !== null;
      if (!removed && !existsSync(row.path)) {
        // Removed by hand: git forgets it on its own prune; the relay notes it gone.
        this.store.markRemoved(sessionId, clock.now());
        removed = true;
      } else if (!removed) {
        const paths = (await statusOf(git, row.path)).map((e) => e.path);
        if (paths.length) {
          uncommitted = { count: paths.length, paths: paths.slice(0, 5) };
          sentences.push(
            `Its worktree ${row.path} was kept: ${paths.length} uncommitted ${paths.length === 1 ? "change" : "changes"} (${paths.slice(0, 5).join(", ")}${paths.length > 5 ? ", …" : ""}).`,
          );
        } else {
          const r = await git(["worktree", "remove", row.path], { cwd: row.repo });
          if (r.ok) {
            this.store.markRemoved(sessionId, clock.now());
            removed = true;
          } else
            sentences.push(
              `Its worktree ${row.path} was kept: git would not remove it (${r.stderr.trim().split("\n").pop()}).`,
            );
        }
      }
      const branch = removed ? await this.deleteIfMerged(this.store.get(sessionId)!) : { deleted: false, why: "" };
      if (branch.why) sentences.push(branch.why);
      return {
        removed,
        path: row.path,
        ...(uncommitted ? { uncommitted } : {}),
        branch: row.branch,
        branchDeleted: branch.deleted,
        note: sentences.join(" "),
      };
    });
  }

  /** Deletes the session's branch when the relay made it, no folder has it checked out and
   * every commit of it is in its base or where it was merged. The delete names the commit it
   * checked, so a commit made in between keeps the branch. */
  async deleteIfMerged(row: WorktreeRow): Promise<{ deleted: boolean; why: string }> {
    const { git, clock } = this.d;
    const repo = row.repo;
    if (row.branch_deleted_at !== null) return { deleted: true, why: "" };
    const tip = await git(["rev-parse", "-q", "--verify", `refs/heads/${row.branch}^{commit}`], { cwd: repo });
    if (!tip.ok) {
      this.store.markBranchDeleted(row.session_id, clock.now());
      return { deleted: true, why: "" };
    }
    const sha = tip.stdout.trim();
    if (!row.made_branch)
      return { deleted: false, why: `Its branch ${row.branch} stays (it was not made by the relay).` };
    const holder = holderOf(await checkouts(git, repo), row.branch);
    if (holder) return { deleted: false, why: `Its branch ${row.branch} stays: it is checked out in ${holder.path}.` };
    const targets = [...new Set([row.merged_into, row.base].filter((t): t is string => !!t))];
    for (const t of targets) {
      const ref = (await yes(git, repo, ["rev-parse", "-q", "--verify", `refs/heads/${t}`])) ? `refs/heads/${t}` : t;
      if (!(await yes(git, repo, ["merge-base", "--is-ancestor", sha, ref]))) continue;
      const del = await git(["update-ref", "-d", `refs/heads/${row.branch}`, sha], { cwd: repo });
      if (!del.ok) return { deleted: false, why: `Its branch ${row.branch} stays: it moved while being deleted.` };
      this.store.markBranchDeleted(row.session_id, clock.now());
      return { deleted: true, why: "" };
    }
    const count = await git(["rev-list", "--count", sha, "--not", ...targets.map((t) => t)], { cwd: repo });
    const n = count.ok ? Number(count.stdout.trim()) : NaN;
    return {
      deleted: false,
      why: `Its branch ${row.branch} stays until it is merged${Number.isFinite(n) ? ` (${n} ${n === 1 ? "commit" : "commits"} not in ${targets.join(" or ")})` : ""}.`,
    };
  }
}
