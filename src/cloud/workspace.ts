import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join, relative, isAbsolute } from "node:path";
import { RelayError } from "../core/errors.ts";
import { git, gitWords } from "./git.ts";
import { maskIn, parseRepo, type RepoRef } from "./repo.ts";

// A Claude Cloud session works in its own clone of `repo` at `branch`, under the data folder
// (`<data>/workspaces/<session id>`). The repository is asked first (`git ls-remote`: is it
// reachable, does the branch exist, which is its default branch) so a bad address is refused
// before any card or row; the clone is made after, into a staging folder that becomes the
// session's workspace once the session exists (or is removed if it never does).

export interface CloudPlan {
  repo: RepoRef;
  branch: string;
  /** Whether the branch exists in the repository; a missing one is made from the default branch. */
  exists: boolean;
}

export interface Staged {
  dir: string;
  /** Moves the clone to the session's workspace and returns its path. */
  place(sessionId: string): string;
  /** Removes the clone unless it was placed. */
  discard(): void;
}

const CLONE_TIMEOUT_MS = 10 * 60_000;
/** Who commits where the machine names nobody (contract §10.1's merge identity). */
export const fallbackIdentity = (relayName: string) => ({ name: `OAR relay ${relayName}`, email: "oar@localhost" });

export const workspacesDir = (dataDir: string) => join(dataDir, "workspaces");

/** Whether `dir` is a workspace folder the relay made (the only folders it ever removes). */
export function isWorkspace(dataDir: string, dir: string): boolean {
  const rel = relative(workspacesDir(dataDir), dir);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) && !rel.includes("/");
}

/** Checks repo and branch, and asks the repository; refuses in words what cannot work. */
export async function planCloud(repoArg: unknown, branchArg: unknown, tail: string): Promise<CloudPlan> {
  if (typeof repoArg !== "string" || !repoArg.trim()) {
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `Claude Cloud sessions take repo (a git URL or a path on this relay) and branch instead of a folder. ${tail}`,
    );
  }
  const repo = parseRepo(repoArg, tail);
  let branch = typeof branchArg === "string" ? branchArg.trim() : "";
  if (branch) {
    const valid = !branch.startsWith("-") && (await git(["check-ref-format", "--branch", branch])).ok;
    if (!valid)
      throw new RelayError(
        "REMOTE_RELAY_INVALID_INPUT",
        `branch "${branch.slice(0, 200)}" is not a valid git branch name. ${tail}`,
      );
  }
  const r = await git(["ls-remote", "--symref", "--", repo.url, "HEAD", ...(branch ? [`refs/heads/${branch}`] : [])]);
  if (!r.ok) {
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `Repository "${repo.display}" cannot be cloned: ${maskIn(gitWords(r), repo.url)} ${tail}`,
    );
  }
  const lines = r.stdout.split("\n");
  const head = /^ref: refs\/heads\/(\S+)\s+HEAD$/m.exec(r.stdout)?.[1];
  if (!branch) branch = head ?? "main";
  const exists =
    lines.some((l) => l.endsWith(`\trefs/heads/${branch}`)) ||
    (!!head && head === branch && lines.some((l) => /^[0-9a-f]{40,}\tHEAD$/.test(l)));
  return { repo, branch, exists };
}

/** Clones the plan into a staging folder under the workspaces folder. */
export async function cloneCloud(dataDir: string, plan: CloudPlan, tail: string, relayName: string): Promise<Staged> {
  const root = workspacesDir(dataDir);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const dir = join(root, `.clone-${randomBytes(6).toString("hex")}`);
  let placed = false;
  const discard = () => {
    if (!placed) rmSync(dir, { recursive: true, force: true });
  };
  const fail = (what: string, r: { stderr: string; code: number | null; ok: boolean; stdout: string }) => {
    discard();
    return new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `Repository "${plan.repo.display}" ${what}: ${maskIn(gitWords(r), plan.repo.url)} ${tail}`,
    );
  };
  const clone = await git(
    ["clone", "--no-recurse-submodules", ...(plan.exists ? ["--branch", plan.branch] : []), "--", plan.repo.url, dir],
    { timeoutMs: CLONE_TIMEOUT_MS },
  );
  if (!clone.ok) throw fail("cannot be cloned", clone);
  if (!plan.exists) {
    const made = await git(["checkout", "-b", plan.branch], { cwd: dir });
    if (!made.ok) throw fail(`has no branch "${plan.branch}" and it could not be made`, made);
  }
  // The agent's plain `git push` goes to the same branch of the repository, also a new one.
  await git(["config", `branch.${plan.branch}.remote`, "origin"], { cwd: dir });
  await git(["config", `branch.${plan.branch}.merge`, `refs/heads/${plan.branch}`], { cwd: dir });
  // Commits need an author: the repository's or machine's identity where it is configured,
  // else the relay's, part by part (a fresh machine or CI has none: git then refuses to commit).
  const fallback = fallbackIdentity(relayName);
  for (const key of ["name", "email"] as const) {
    if (!(await git(["config", `user.${key}`], { cwd: dir })).stdout.trim())
      await git(["config", `user.${key}`, fallback[key]], { cwd: dir });
  }
  return {
    dir,
    discard,
    place(sessionId) {
      const final = join(root, sessionId);
      renameSync(dir, final);
      placed = true;
      return final;
    },
  };
}

/** Removes a workspace folder the relay made; anything else is left alone. */
export function removeWorkspace(dataDir: string, dir: string): boolean {
  if (!isWorkspace(dataDir, dir) || !existsSync(dir)) return false;
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  return true;
}
