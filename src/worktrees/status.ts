// `git status` of a checkout: what is uncommitted in it. Read without git's optional locks,
// so the relay looking never holds a folder's index.lock while its owner (or a merge landing
// there) writes to it.
import { run, type Git } from "./git-run.ts";

export interface StatusEntry {
  /** Two letters, index then worktree (`??` untracked). */
  xy: string;
  path: string;
}

/** `git status --porcelain -z --no-renames`: one entry per path. */
export function parseStatus(out: string): StatusEntry[] {
  return out
    .split("\0")
    .filter((e) => e.length > 3)
    .map((e) => ({ xy: e.slice(0, 2), path: e.slice(3) }));
}

/** Uncommitted entries of `folder`: tracked changes, and new untracked files unless `untracked` is false. */
export async function statusOf(git: Git, folder: string, untracked = true): Promise<StatusEntry[]> {
  return parseStatus(
    await run(git, folder, [
      "--no-optional-locks",
      "status",
      "--porcelain",
      "-z",
      "--no-renames",
      `--untracked-files=${untracked ? "all" : "no"}`,
    ]),
  );
}
