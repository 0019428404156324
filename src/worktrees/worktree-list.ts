// `git worktree list --porcelain -z`: every checkout of a repository, the main folder first.
// Which folder holds a branch decides two refusals (a branch already checked out elsewhere,
// a merge target with uncommitted changes).
import { run, type Git } from "./git-run.ts";

export interface Checkout {
  path: string;
  head: string | null;
  /** Short branch name; null when detached or bare. */
  branch: string | null;
  bare: boolean;
}

export function parseWorktreeList(out: string): Checkout[] {
  const list: Checkout[] = [];
  let cur: Checkout | null = null;
  for (const field of out.split("\0")) {
    if (field === "") {
      if (cur) list.push(cur);
      cur = null;
      continue;
    }
    const sp = field.indexOf(" ");
    const key = sp < 0 ? field : field.slice(0, sp);
    const value = sp < 0 ? "" : field.slice(sp + 1);
    if (key === "worktree") cur = { path: value, head: null, branch: null, bare: false };
    else if (!cur) continue;
    else if (key === "HEAD") cur.head = value;
    else if (key === "branch") cur.branch = value.replace(/^refs\/heads\//, "");
    else if (key === "bare") cur.bare = true;
  }
  if (cur) list.push(cur);
  return list;
}

export async function checkouts(git: Git, cwd: string): Promise<Checkout[]> {
  return parseWorktreeList(await run(git, cwd, ["worktree", "list", "--porcelain", "-z"]));
}

/** The folder where `branch` is checked out, if any. */
export const holderOf = (list: Checkout[], branch: string): Checkout | undefined =>
  list.find((c) => c.branch === branch);
