// Real git repositories in temp folders for the worktrees tests. A fresh CI machine has no git
// identity, so none is assumed: `isolateGit()` hides this machine's global and system config
// from every git this process (and the relay code it runs) starts, and the helpers here sign
// each commit they make themselves.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { git as gitRunner } from "../../src/cloud/git.ts";
import { ManualClock, type Clock } from "../../src/core/clock.ts";
import { RelayError } from "../../src/core/errors.ts";
import { openDb, type Db } from "../../src/store/db.ts";

export const ID = ["-c", "user.name=Test Person", "-c", "user.email=test@example.com"];

/** No global or system git config from here on (no identity, no aliases, no hooks path). */
export function isolateGit(): void {
  const empty = join(mkdtempSync(join(tmpdir(), "oar-gitcfg-")), "config");
  writeFileSync(empty, "");
  process.env.GIT_CONFIG_GLOBAL = empty;
  process.env.GIT_CONFIG_NOSYSTEM = "1";
  for (const k of ["GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"])
    delete process.env[k];
}

/** git in `cwd`, signed by the test's identity; stdout. */
export function g(cwd: string, ...args: string[]): string {
  return execFileSync("git", [...ID, ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

export function write(root: string, rel: string, text: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
}

export function commitAll(cwd: string, message: string): string {
  g(cwd, "add", "-A");
  g(cwd, "commit", "-q", "-m", message);
  return g(cwd, "rev-parse", "HEAD").trim();
}

const temps: string[] = [];

export function tempDir(prefix = "oar-wt-"): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  temps.push(d);
  return d;
}

export function cleanTemps(): void {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A repository on branch main with one commit holding `files`. */
export function makeRepo(
  files: Record<string, string> = { "README.md": "hello\n", "src/a.ts": "export const a = 1;\n" },
): string {
  const root = join(tempDir(), "repo");
  mkdirSync(root);
  g(root, "init", "-q", "-b", "main");
  for (const [rel, text] of Object.entries(files)) write(root, rel, text);
  commitAll(root, "initial");
  return root;
}

/** What the domain needs: a real SQLite file, a clock and git. */
export function domainDeps(clock: Clock = new ManualClock(Date.parse("2026-12-01T10:00:00Z"))): {
  db: Db;
  clock: Clock;
  git: typeof gitRunner;
  dataDir: string;
} {
  const dataDir = tempDir("oar-data-");
  return { db: openDb(join(dataDir, "relay.db")), clock, git: gitRunner, dataDir };
}

/** The RelayError `p` is refused with. */
export async function refusal(p: Promise<unknown>): Promise<RelayError> {
  const e = await p.then(
    () => assert.fail("expected a refusal"),
    (err: unknown) => err,
  );
  assert.ok(e instanceof RelayError, String(e));
  return e;
}
