// What a worktree session changed against its base (contract §10.1 `changes`): everything
// since the point its branch left the base — commits, uncommitted edits and new untracked
// files alike — so work merged into the base meanwhile is not counted as the session's.
//
// New untracked files are shown by git itself: a copy of the worktree's index gets them as
// "intent to add" (no file content is written into the repository), and one `git diff`
// against the fork point then lists, counts and diffs all three kinds together.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseRawNumstat, type FileChange } from "./diff-parse.ts";
import { run, zList, type Git } from "./git-run.ts";
import { statusOf } from "./status.ts";

export interface Changes {
  files: FileChange[];
  ahead: number;
  behind: number;
  /** Uncommitted changes (new untracked files included). */
  dirty: boolean;
}

export interface ChangesWithDiff extends Changes {
  /** Unified, 3 lines of context. */
  diff: string;
  /** The diff was cut at `DIFF_MAX` characters. */
  diffTruncated?: boolean;
}

export const DIFF_MAX = 2_000_000;

export interface WorktreeRef {
  path: string;
  base: string;
  baseCommit: string;
}

export function changesOf(git: Git, wt: WorktreeRef): Promise<Changes>;
export function changesOf(git: Git, wt: WorktreeRef, opts: { diff: true }): Promise<ChangesWithDiff>;
export async function changesOf(
  git: Git,
  wt: WorktreeRef,
  opts: { diff?: boolean } = {},
): Promise<Changes | ChangesWithDiff> {
  const baseRef = wt.base === wt.baseCommit ? wt.baseCommit : `refs/heads/${wt.base}`;
  const [entries, counts, fork] = await Promise.all([
    statusOf(git, wt.path),
    aheadBehind(git, wt, baseRef),
    forkPoint(git, wt, baseRef),
  ]);
  const untracked = entries.filter((e) => e.xy === "??").map((e) => e.path);
  return withUntracked(git, wt.path, untracked, async (env) => {
    const files = parseRawNumstat(
      await run(git, wt.path, ["diff", "-z", "--raw", "--numstat", "-M", "--no-ext-diff", fork], { env }),
    );
    const changes: Changes = { files, ahead: counts.ahead, behind: counts.behind, dirty: entries.length > 0 };
    if (!opts.diff) return changes;
    const diff = await run(
      git,
      wt.path,
      ["-c", "core.quotepath=false", "diff", "-U3", "-M", "--no-color", "--no-ext-diff", fork],
      { env, maxBuffer: 256 * 1024 * 1024 },
    );
    return diff.length > DIFF_MAX
      ? { ...changes, diff: diff.slice(0, DIFF_MAX), diffTruncated: true }
      : { ...changes, diff };
  });
}

/** The paths a worktree touched against its base (a rename: both names): what overlaps, in
 * two parts — its commits since the fork point (a tree-to-tree diff, no file read; with the
 * commit HEAD was at) and what is uncommitted (`git status`, new untracked files included):
 * one pass over the files. A file changed in a commit and changed back since still counts. */
export async function changedPaths(
  git: Git,
  wt: WorktreeRef,
): Promise<{ head: string; committed: Set<string>; uncommitted: Set<string> }> {
  const [entries, committed] = await Promise.all([statusOf(git, wt.path), committedPaths(git, wt)]);
  return { ...committed, uncommitted: new Set(entries.map((e) => e.path)) };
}

/** The paths the worktree's commits changed since it left its base, and HEAD's commit. */
export async function committedPaths(git: Git, wt: WorktreeRef): Promise<{ head: string; committed: Set<string> }> {
  const baseRef = wt.base === wt.baseCommit ? wt.baseCommit : `refs/heads/${wt.base}`;
  const [head, fork] = await Promise.all([
    run(git, wt.path, ["rev-parse", "HEAD"]).then((o) => o.trim()),
    forkPoint(git, wt, baseRef),
  ]);
  const committed = new Set(
    zList(await run(git, wt.path, ["diff", "-z", "--name-only", "--no-renames", "--no-ext-diff", fork, head])),
  );
  return { head, committed };
}

/** Uncommitted paths of a checkout (the main folder): tracked edits and new untracked files. */
export async function uncommittedPaths(git: Git, folder: string): Promise<Set<string>> {
  return new Set((await statusOf(git, folder)).map((e) => e.path));
}

async function aheadBehind(git: Git, wt: WorktreeRef, baseRef: string): Promise<{ ahead: number; behind: number }> {
  let r = await git(["rev-list", "--left-right", "--count", `${baseRef}...HEAD`], { cwd: wt.path });
  // The base branch is gone (deleted by its owner): count against the commit it was made from.
  if (!r.ok) r = await git(["rev-list", "--left-right", "--count", `${wt.baseCommit}...HEAD`], { cwd: wt.path });
  const [behind, ahead] = r.stdout.trim().split(/\s+/).map(Number);
  return { ahead: ahead || 0, behind: behind || 0 };
}

async function forkPoint(git: Git, wt: WorktreeRef, baseRef: string): Promise<string> {
  const r = await git(["merge-base", baseRef, "HEAD"], { cwd: wt.path });
  return r.ok ? r.stdout.trim() : wt.baseCommit;
}

/** Runs `fn` with an environment whose index also holds `untracked` as intent-to-add. */
async function withUntracked<T>(
  git: Git,
  cwd: string,
  untracked: string[],
  fn: (env: Record<string, string> | undefined) => Promise<T>,
): Promise<T> {
  if (!untracked.length) return fn(undefined);
  const dir = mkdtempSync(join(tmpdir(), "oar-changes-"));
  try {
    const index = join(dir, "index");
    copyFileSync((await run(git, cwd, ["rev-parse", "--path-format=absolute", "--git-path", "index"])).trim(), index);
    const list = join(dir, "paths");
    writeFileSync(list, `${untracked.join("\0")}\0`);
    const env = { GIT_INDEX_FILE: index, GIT_LITERAL_PATHSPECS: "1" };
    await run(git, cwd, ["add", "--intent-to-add", "--pathspec-from-file", list, "--pathspec-file-nul"], { env });
    return await fn(env);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
