import { existsSync } from "node:fs";
import { RelayError } from "../core/errors.ts";
import type { SessionRow } from "../sessions/types.ts";
import { git, gitWords } from "./git.ts";
import { maskIn } from "./repo.ts";

// Pushing a Claude Cloud session's branch back to its repository (POST
// /api/sessions/:id/push). The agent's commits stay in the workspace until then; the agent
// may also push itself (`git push`: the clone's branch tracks the same branch there).
// Push sends commits only: it never commits for the agent. What the agent changed without
// committing is counted (`uncommitted`), so "nothing to push" does not read as "all sent".

export interface PushResult {
  ok: true;
  pushed: boolean;
  branch: string;
  /** Commits the repository did not have before this push. */
  commits: number;
  repo: string;
  /** Files changed in the workspace but not committed (not pushed; ask the agent to commit). */
  uncommitted: number;
}

const NOTHING = "Nothing was pushed.";

export async function pushWorkspace(s: SessionRow): Promise<PushResult> {
  if (s.provider !== "claude-cloud" || !s.repo || !s.branch) {
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `Session "${s.title}" is not a Claude Cloud session: it works in a folder, not on a clone of a repository. ${NOTHING}`,
    );
  }
  if (!existsSync(s.cwd))
    throw new RelayError(
      "REMOTE_RELAY_NOT_FOUND",
      `The workspace of session "${s.title}" (${s.cwd}) is gone. ${NOTHING}`,
    );
  const url = (await git(["remote", "get-url", "origin"], { cwd: s.cwd })).stdout.trim();
  const local = `refs/heads/${s.branch}`;
  if (!(await git(["rev-parse", "--verify", "--quiet", `${local}^{commit}`], { cwd: s.cwd })).ok) {
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `The workspace of session "${s.title}" has no commit on branch "${s.branch}" yet. ${NOTHING}`,
    );
  }
  const tracked = (await git(["rev-parse", "--verify", "--quiet", `refs/remotes/origin/${s.branch}`], { cwd: s.cwd }))
    .ok;
  const ahead = await git(["rev-list", "--count", local, "--not", "--remotes=origin"], { cwd: s.cwd });
  const commits = Number(ahead.stdout.trim()) || 0;
  const r = await git(["push", "--porcelain", "origin", `${local}:${local}`], { cwd: s.cwd, timeoutMs: 5 * 60_000 });
  if (!r.ok) {
    const words = maskIn(gitWords({ ...r, stderr: `${r.stderr}\n${r.stdout}` }), url);
    const behind = /rejected|non-fast-forward|fetch first/i.test(r.stdout + r.stderr);
    throw new RelayError(
      "REMOTE_RELAY_INVALID_INPUT",
      `git push of branch "${s.branch}" to ${s.repo} failed: ${words}${behind ? " The branch there has commits this workspace lacks: ask the agent to pull them (git pull --rebase) and push again." : ""} ${NOTHING}`,
    );
  }
  const status = await git(["status", "--porcelain", "--untracked-files=all"], { cwd: s.cwd });
  const uncommitted = status.ok ? status.stdout.split("\n").filter(Boolean).length : 0;
  return { ok: true, pushed: commits > 0 || !tracked, branch: s.branch, commits, repo: s.repo, uncommitted };
}
