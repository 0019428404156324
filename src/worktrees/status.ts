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

/** A status limited to `paths` (relative to `folder`): which of them are uncommitted, and the
 * commit HEAD is at (null before the first), in one git process that looks at those paths
 * only — not at every file of the checkout. */
export async function statusOfPaths(
  git: Git,
  folder: string,
  paths: readonly string[],
): Promise<{ head: string | null; uncommitted: Set<string> }> {
  const out = await run(
    git,
    folder,
    [
      "--no-optional-locks",
      "status",
      "--porcelain=v2",
      "--branch",
      "-z",
      "--no-renames",
      "--untracked-files=all",
      "--",
      ...paths,
    ],
    { env: { GIT_LITERAL_PATHSPECS: "1" } },
  );
  let head: string | null = null;
  const uncommitted = new Set<string>();
  for (const e of out.split("\0")) {
    if (e.startsWith("# branch.oid ")) {
      const oid = e.slice("# branch.oid ".length);
      head = /^[0-9a-f]{40,64}$/.test(oid) ? oid : null;
    } else if (e.startsWith("? ")) uncommitted.add(e.slice(2));
    // `1 XY sub mH mI mW hH hI path`, `u XY sub m1 m2 m3 mW h1 h2 h3 path`.
    else if (e.startsWith("1 ")) uncommitted.add(fieldsAfter(e, 8));
    else if (e.startsWith("u ")) uncommitted.add(fieldsAfter(e, 10));
  }
  return { head, uncommitted };
}

/** What follows the first `n` space-separated fields (a path may hold spaces). */
function fieldsAfter(entry: string, n: number): string {
  let at = 0;
  for (let i = 0; i < n; i++) at = entry.indexOf(" ", at) + 1;
  return entry.slice(at);
}
