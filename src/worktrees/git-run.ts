// git for this domain: the relay's one way of running it (cloud/git.ts: a child process that
// never prompts), plus a failure that carries git's own words and the identity a commit made
// by the relay is signed with.
import { gitWords, type Git, type GitOptions, type GitResult } from "../cloud/git.ts";

export type { Git, GitResult };

export class GitFailed extends Error {
  constructor(
    readonly args: string[],
    readonly result: GitResult,
  ) {
    super(gitWords(result));
    this.name = "GitFailed";
  }
}

/** stdout of a git command that must work; GitFailed otherwise. */
export async function run(git: Git, cwd: string, args: string[], opts: Omit<GitOptions, "cwd"> = {}): Promise<string> {
  const r = await git(args, { ...opts, cwd });
  if (!r.ok) throw new GitFailed(args, r);
  return r.stdout;
}

/** Whether a git command exits 0 (a yes/no question such as `merge-base --is-ancestor`). */
export async function yes(git: Git, cwd: string, args: string[]): Promise<boolean> {
  return (await git(args, { cwd })).ok;
}

/** NUL-separated output as a list, without the empty end. */
export const zList = (out: string): string[] => out.split("\0").filter((s) => s !== "");

/** The identity a commit made by the relay carries: the repository's own when one is
 * configured (its config, the global one, the system one), else `OAR relay <name>
 * <oar@localhost>` (contract §10.1). Returned as environment variables for the commit. */
export async function commitIdentity(git: Git, repo: string, relayName: string): Promise<Record<string, string>> {
  const set = (await git(["config", "--get-regexp", "^user\\.(name|email)$"], { cwd: repo })).stdout;
  if (/^user\.name \S/m.test(set) && /^user\.email \S/m.test(set)) return {};
  const who = `OAR relay ${relayName}`;
  const at = "oar@localhost";
  return { GIT_AUTHOR_NAME: who, GIT_AUTHOR_EMAIL: at, GIT_COMMITTER_NAME: who, GIT_COMMITTER_EMAIL: at };
}
