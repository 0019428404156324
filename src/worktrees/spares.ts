// A spare worktree per repository, checked out ahead of time. Writing 10k files costs a
// third of a second of CPU, far over what a new session may add to its first reply; taking
// the spare costs a branch switch (only the files HEAD changed since) and a rename. After each
// take a new spare is made in the background. A spare is only ever made under a temporary
// name and renamed to `.spare` when complete, so a crash mid-way leaves nothing that looks
// ready; leftovers are cleared before the next one is made.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { Git } from "./git-run.ts";
import type { RepoFolders } from "./folders.ts";
import type { KeyedLock } from "./keyed-lock.ts";

const PARTIAL = ".spare-new-";
// The relay's own checkouts run no hooks: a spare is nobody's working copy yet (its hooks run
// when a session takes it and switches branch).
export const NO_HOOKS = ["-c", "core.hooksPath=/dev/null"];

export class Spares {
  private filling = new Map<string, Promise<void>>();
  private stopping = new AbortController();
  /** The commit each spare was made at (unknown for one made before a restart). */
  private commits = new Map<string, string>();

  constructor(private readonly d: { git: Git; folders: RepoFolders; lock: KeyedLock }) {}

  /** The ready spare of `repo` and the commit it is at (call under the repository's lock),
   * or null. A `.spare` is only ever complete: it gets that name when it is. */
  ready(repo: string): { path: string; commit: string | null } | null {
    const spare = this.d.folders.spare(repo);
    return existsSync(join(spare, ".git")) ? { path: spare, commit: this.commits.get(repo) ?? null } : null;
  }

  /** The spare was taken (or given up): it is no longer at a known commit. */
  taken(repo: string): void {
    this.commits.delete(repo);
  }

  /** Makes a spare at `commit` unless one is ready or being made — once `after` resolves (the
   * session that took the last one has its first reply: its agent's start does not share the
   * machine with a checkout); does not wait. */
  refill(repo: string, commit: string, after?: Promise<void>): Promise<void> {
    const running = this.filling.get(repo);
    if (running) return running;
    const p = (after ?? Promise.resolve())
      .then(() => this.fill(repo, commit))
      .catch((e) => console.error(`[worktrees] spare for ${repo} not made:`, e instanceof Error ? e.message : e))
      .finally(() => this.filling.delete(repo));
    this.filling.set(repo, p);
    return p;
  }

  /** At start: a spare left from before is known again by its commit (nobody works in a
   * spare, so it is still whole), and one that is missing is made at the repository's HEAD —
   * so the first session after a restart takes a spare too. Does not wait. */
  warm(repo: string): Promise<void> {
    const { git } = this.d;
    const running = this.filling.get(repo);
    if (running) return running;
    const at = (cwd: string) =>
      git(["rev-parse", "-q", "--verify", "HEAD^{commit}"], { cwd, background: true }).then((r) =>
        r.ok ? r.stdout.trim() : null,
      );
    const ready = this.ready(repo);
    const p = ready
      ? at(ready.path).then((c) => {
          if (c && !this.commits.has(repo) && this.ready(repo)) this.commits.set(repo, c);
        })
      : at(repo).then((c) => (c ? this.fill(repo, c) : undefined));
    const done = p
      .catch((e) => console.error(`[worktrees] spare for ${repo} not warmed:`, e instanceof Error ? e.message : e))
      .finally(() => this.filling.get(repo) === done && this.filling.delete(repo));
    this.filling.set(repo, done);
    return done;
  }

  /** Moves the ready spare of `repo` to `path` for the relay's own use (the merge queue's
   * scratch worktree), and makes a new one at the same commit; false when none is ready. */
  async takeFor(repo: string, path: string): Promise<boolean> {
    const took = await this.d.lock.run(repo, async () => {
      const spare = this.ready(repo);
      if (!spare) return null;
      this.taken(repo);
      const moved = await this.move(repo, spare.path, path);
      if (!moved) await this.discard(repo, spare.path);
      return moved ? (spare.commit ?? "HEAD") : null;
    });
    if (!took) return false;
    const at = await this.d.git(["rev-parse", "-q", "--verify", `${took}^{commit}`], { cwd: repo });
    if (at.ok) void this.refill(repo, at.stdout.trim());
    return true;
  }

  /** Resolves when no spare is being made for `repo` (bench, tests, shutdown). */
  settled(repo: string): Promise<void> {
    return this.filling.get(repo) ?? Promise.resolve();
  }

  /** Shutdown: a spare being made is cut at once (a checkout left running would go on writing
   * into the data folder after the relay is gone); its partial folder is cleared next time. */
  stop(): void {
    this.stopping.abort();
  }

  /** Removes the spare of `repo` (the last worktree session of it went away). */
  async drop(repo: string): Promise<void> {
    await this.settled(repo);
    await this.d.lock.run(repo, () => this.discard(repo, this.d.folders.spare(repo)));
  }

  private async fill(repo: string, commit: string): Promise<void> {
    const { git, folders } = this.d;
    const dir = folders.of(repo);
    const spare = folders.spare(repo);
    if (existsSync(spare) || this.stopping.signal.aborted) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const name of readdirSync(dir)) if (name.startsWith(PARTIAL)) await this.discard(repo, join(dir, name));
    const partial = join(dir, PARTIAL + randomBytes(4).toString("hex"));
    // At the lowest CPU priority: the session that took the last spare is starting its agent now.
    const add = await git([...NO_HOOKS, "worktree", "add", "--detach", "-q", partial, commit], {
      cwd: repo,
      timeoutMs: 10 * 60_000,
      background: true,
      signal: this.stopping.signal,
    });
    if (this.stopping.signal.aborted) return;
    if (!add.ok) return this.discard(repo, partial);
    // A fresh index holds entries "racily clean" (written in the same tick as the files):
    // refreshed now, the switch that takes the spare need not read every file again.
    await git(["update-index", "-q", "--refresh"], { cwd: partial, background: true, signal: this.stopping.signal });
    if (this.stopping.signal.aborted) return;
    await this.d.lock.run(repo, async () => {
      if (existsSync(spare)) return this.discard(repo, partial);
      const moved = await git(["worktree", "move", partial, spare], { cwd: repo });
      if (!moved.ok) await this.discard(repo, partial);
      else this.commits.set(repo, commit);
    });
  }

  /** Moves a worktree of `repo` from `from` to `to` as `git worktree move` does, without a git
   * process (the create path counts them): the folder is renamed and git's record of where it
   * is (`<common dir>/worktrees/<id>/gitdir`, gitrepository-layout(5)) rewritten. Falls back to
   * `git worktree move` when the folder is not laid out as expected. */
  async move(repo: string, from: string, to: string): Promise<boolean> {
    let record: string | null = null;
    try {
      const link = /^gitdir: (.+)$/m.exec(readFileSync(join(from, ".git"), "utf8"))?.[1]?.trim();
      if (link && isAbsolute(link) && readFileSync(join(link, "gitdir"), "utf8").trim() === join(from, ".git"))
        record = join(link, "gitdir");
    } catch {}
    if (!record || existsSync(to)) return (await this.d.git(["worktree", "move", from, to], { cwd: repo })).ok;
    renameSync(from, to);
    try {
      writeFileSync(record, `${join(to, ".git")}\n`);
      return true;
    } catch {
      renameSync(to, from);
      return false;
    }
  }

  /** Removes a checkout the relay made for itself (a spare, a partial one): nothing of anyone's in it. */
  async discard(repo: string, path: string): Promise<void> {
    await this.d.git(["worktree", "remove", "--force", "--force", path], { cwd: repo });
    // Not registered (an add that failed half-way): the folder goes; git's record of it, if
    // any, names a missing folder and holds no branch. (No `worktree prune`: it would also
    // forget the owner's own checkouts on a drive that is not mounted just now.)
    rmSync(path, { recursive: true, force: true });
  }
}
