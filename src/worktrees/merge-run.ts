// One merge of the queue, start to end. The merge itself is computed by git without a
// working tree (`merge-tree --write-tree`), so a conflict leaves no trace anywhere. With a
// test command the merged tree is checked out in the repository's scratch worktree (kept
// between merges: only what changed is written) and tested there. Only then does `into`
// move: by a fast-forward of the folder where it is checked out (a clean one; with
// uncommitted changes: REMOTE_RELAY_BUSY), or a compare-and-swap of the branch when no
// folder has it. Had `into` moved meanwhile, the merge is made again on top of it.
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { gitWords } from "../cloud/git.ts";
import type { RepoFolders } from "./folders.ts";
import { commitIdentity, run, zList, type Git } from "./git-run.ts";
import type { MergeOutcome } from "./merge-store.ts";
import { NO_HOOKS } from "./spares.ts";
import type { TestCounts } from "../tasks/test-counts.ts";
import { statusOf } from "./status.ts";
import type { TestRun } from "./test-command.ts";
import { checkouts, holderOf, type Checkout } from "./worktree-list.ts";

export interface MergeRunDeps {
  git: Git;
  folders: RepoFolders;
  relayName: string;
  runTest(command: string, cwd: string): Promise<TestRun>;
  /** Runs the landing (moving `into`, bringing its folder forward) alone for the repository. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** The identity merge commits are signed with, read once for a run of the queue. */
  identity?(): Promise<Record<string, string>>;
  /** The scratch worktree is being cleaned after its tests (resolves true when it was):
   * the next merge's checkout waits for it and need not clean again. */
  cleaned?(done: Promise<boolean>): void;
  /** Whether the scratch worktree was cleaned after its last tests (waits for that clean). */
  isClean?(): Promise<boolean>;
  /** Moves the repository's ready spare checkout to `path` (true), or answers false. */
  takeSpare?(path: string): Promise<boolean>;
}

export interface MergeJob {
  id: string;
  repo: string;
  sessionId: string;
  branch: string;
  into: string;
  test: string | null;
}

const ATTEMPTS = 3;
const NOTHING = "Nothing was merged.";

export async function runMerge(d: MergeRunDeps, m: MergeJob): Promise<MergeOutcome> {
  const { git } = d;
  const { repo } = m;
  let env: Promise<Record<string, string>> | null = null;
  const identity = () => (env ??= d.identity?.() ?? commitIdentity(git, repo, d.relayName));
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const [into, branch] = await tips(git, repo, [m.into, m.branch]);
    if (!into || !branch) {
      return {
        status: "refused",
        code: "REMOTE_RELAY_INVALID_INPUT",
        error: `Branch ${!into ? m.into : m.branch} no longer exists in ${repo}. ${NOTHING}`,
      };
    }
    // One merge-base answers both questions: already in (it is the branch), a fast-forward (it is `into`).
    const base = (await git(["merge-base", into, branch], { cwd: repo })).stdout.trim();
    if (base === branch) return { status: "merged", commit: into, fastForward: false, upToDate: true };
    const fastForward = base === into;
    let commit = branch;
    if (!fastForward) {
      const tree = await git(["merge-tree", "--write-tree", "-z", "--name-only", "--no-messages", into, branch], {
        cwd: repo,
      });
      const out = zList(tree.stdout);
      if (tree.code === 1) return { status: "conflict", files: [...new Set(out.slice(1))].sort() };
      if (!tree.ok || !out[0])
        return {
          status: "refused",
          code: "REMOTE_RELAY_INVALID_INPUT",
          error: `git could not merge ${m.branch} into ${m.into}: ${gitWords(tree)}. ${NOTHING}`,
        };
      const env = await identity();
      const message = `Merge branch '${m.branch}' into ${m.into}\n\nOAR-Session: ${m.sessionId}\nOAR-Merge: ${m.id}\n`;
      commit = (await run(git, repo, ["commit-tree", out[0], "-p", into, "-p", branch, "-m", message], { env })).trim();
    }
    let counts: TestCounts | undefined;
    if (m.test) {
      const scratch = await scratchAt(d, repo, commit);
      // A target that cannot be brought forward is looked for while the tests run (not before
      // them: that would add its pass over the files to every merge); found, the merge is
      // refused once they end.
      const [result, busy] = await Promise.all([d.runTest(m.test, scratch), dirtyHolder(git, repo, m.into)]);
      // What the tests left in the scratch worktree goes while the merge lands.
      d.cleaned?.(git(["clean", "-ffdq"], { cwd: scratch }).then((r) => r.ok));
      if (busy) return busy;
      if (result.exitCode !== 0) {
        return {
          status: "tests_failed",
          tail: result.tail,
          truncated: result.truncated,
          exitCode: result.exitCode,
          ...(result.counts ? { counts: result.counts } : {}),
          ...(result.stopped ? { stopped: result.stopped } : {}),
        };
      }
      counts = result.counts;
    }
    const landed = await d.exclusive(() => land(d, m, into, commit, identity));
    if (landed === "moved") continue;
    if (landed !== null && typeof landed === "object") return landed;
    return {
      status: "merged",
      commit,
      fastForward,
      ...(landed ? { updatedFolder: landed } : {}),
      ...(counts ? { counts } : {}),
    };
  }
  return {
    status: "refused",
    code: "REMOTE_RELAY_BUSY",
    error: `${m.into} kept moving while the merge was made and tested (${ATTEMPTS} times); ask again when it is still. ${NOTHING}`,
  };
}

/** The commits the branches point at (null for one that does not exist), in one git process. */
export async function tips(git: Git, repo: string, branches: string[]): Promise<(string | null)[]> {
  const refs = branches.map((b) => `refs/heads/${b}`);
  const out = await run(git, repo, ["for-each-ref", "--format=%(refname) %(objectname)", ...refs]);
  const at = new Map(
    out
      .split("\n")
      .filter(Boolean)
      .map((l) => l.split(" ") as [string, string]),
  );
  return refs.map((r) => at.get(r) ?? null);
}

const tip = async (git: Git, repo: string, branch: string) => (await tips(git, repo, [branch]))[0];

/** REMOTE_RELAY_BUSY when `into` is checked out in a folder with uncommitted changes to
 * tracked files (new untracked files do not stop it; one the merge would overwrite does, when
 * the folder is brought forward). */
export async function dirtyHolder(
  git: Git,
  repo: string,
  into: string,
  known?: Checkout,
): Promise<MergeOutcome | null> {
  const holder = known ?? holderOf(await checkouts(git, repo), into);
  if (!holder || !existsSync(holder.path)) return null;
  const n = (await statusOf(git, holder.path, false)).length;
  if (!n) return null;
  return {
    status: "refused",
    code: "REMOTE_RELAY_BUSY",
    error: `${into} is checked out in ${holder.path}, which has ${n} uncommitted ${n === 1 ? "change" : "changes"}; commit or stash ${n === 1 ? "it" : "them"} there first. ${NOTHING}`,
  };
}

/** The scratch worktree at `commit`, as clean as git leaves a checkout (ignored files, such
 * as installed dependencies and build caches, stay between merges). */
async function scratchAt(d: MergeRunDeps, repo: string, commit: string): Promise<string> {
  const { git } = d;
  const scratch = d.folders.scratch(repo);
  if (existsSync(join(scratch, ".git"))) {
    const clean = (await d.isClean?.()) ?? false;
    const co = await git([...NO_HOOKS, "checkout", "-q", "-f", "--detach", commit], {
      cwd: scratch,
      timeoutMs: 10 * 60_000,
    });
    if (co.ok && (clean || (await git(["clean", "-ffdq"], { cwd: scratch })).ok)) return scratch;
  }
  // Missing or broken: made again — from the sessions' spare when one is ready (a checkout
  // of the whole repository made ahead of time: only what differs is written now).
  await git(["worktree", "remove", "--force", "--force", scratch], { cwd: repo });
  rmSync(scratch, { recursive: true, force: true });
  if (await d.takeSpare?.(scratch)) {
    const co = await git([...NO_HOOKS, "checkout", "-q", "-f", "--detach", commit], {
      cwd: scratch,
      timeoutMs: 10 * 60_000,
    });
    if (co.ok) return scratch;
    await git(["worktree", "remove", "--force", "--force", scratch], { cwd: repo });
    rmSync(scratch, { recursive: true, force: true });
  }
  await run(git, repo, [...NO_HOOKS, "worktree", "add", "-f", "--detach", "-q", scratch, commit], {
    timeoutMs: 10 * 60_000,
  });
  return scratch;
}

/** Moves `into` from `from` to `commit`. Returns the folder brought forward (or null when
 * none has it), "moved" when `into` no longer is at `from`, or a refusal. */
async function land(
  d: MergeRunDeps,
  m: MergeJob,
  from: string,
  commit: string,
  identity: () => Promise<Record<string, string>>,
): Promise<string | null | "moved" | MergeOutcome> {
  const { git } = d;
  const holder = holderOf(await checkouts(git, m.repo), m.into);
  if (!holder) {
    const r = await git(["update-ref", "-m", `merge ${m.branch} (OAR ${m.id})`, `refs/heads/${m.into}`, commit, from], {
      cwd: m.repo,
    });
    return r.ok ? null : "moved";
  }
  const busy = await dirtyHolder(git, m.repo, m.into, holder);
  if (busy) return busy;
  // Not a fast-forward from where `into` is now (it moved): the merge is made again on top.
  const ff = await git(["merge", "--ff-only", "-q", commit], { cwd: holder.path, env: await identity() });
  if (ff.ok) return holder.path;
  if ((await tip(git, m.repo, m.into)) !== from) return "moved";
  return {
    status: "refused",
    code: "REMOTE_RELAY_BUSY",
    error: `${m.into} is checked out in ${holder.path}, and git would not bring that folder forward: ${gitWords(ff)}. ${NOTHING}`,
  };
}
