// Which git repository a folder lies in, seen from that folder: the repository's main folder
// (its first checkout, where claims and merges are kept), what HEAD is there, and every
// checkout with its branch. A folder outside any repository gets the reason in words.
import { existsSync, realpathSync, statSync } from "node:fs";
import { gitWords } from "../cloud/git.ts";
import { isInside } from "../core/paths.ts";
import type { Git } from "./git-run.ts";
import { parseWorktreeList, type Checkout } from "./worktree-list.ts";

export interface Repo {
  /** The repository's main folder (real path). */
  main: string;
  /** HEAD of the folder asked about: its branch (null when detached) and commit (null before the first commit). */
  head: { branch: string | null; commit: string | null };
  checkouts: Checkout[];
}

export type RepoLookup = { ok: true; repo: Repo } | { ok: false; reason: string };

export async function findRepo(git: Git, folder: string): Promise<RepoLookup> {
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    return { ok: false, reason: `${folder} is not a folder on this relay` };
  const dir = realpathSync(folder);
  // One git process: the checkouts list says where the folder's checkout is and its HEAD.
  const list = await git(["worktree", "list", "--porcelain", "-z"], { cwd: dir });
  if (!list.ok) {
    const words = gitWords(list);
    return {
      ok: false,
      reason: /not a git repository/i.test(words)
        ? `${dir} is not inside a git repository`
        : `git cannot read the repository at ${dir}: ${words}`,
    };
  }
  const checkouts = parseWorktreeList(list.stdout).map((c) => ({
    ...c,
    path: existsSync(c.path) ? realpathSync(c.path) : c.path,
  }));
  const first = checkouts[0];
  if (!first || first.bare)
    return { ok: false, reason: `${dir} belongs to a bare repository, which has no main folder to work from` };
  const own =
    checkouts.filter((c) => dir === c.path || isInside(c.path, dir)).sort((a, b) => b.path.length - a.path.length)[0] ??
    first;
  const commit = own.head && !/^0+$/.test(own.head) ? own.head : null;
  return { ok: true, repo: { main: first.path, head: { branch: own.branch, commit }, checkouts } };
}
