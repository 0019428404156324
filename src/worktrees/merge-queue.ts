// The merge queue (contract §10.1): merges into one repository run one at a time, in the
// order asked, each on top of what the one before it left. `ask` checks what can be checked
// at once (so a refusal changes nothing) and queues; `wait` answers `queued` with the
// position when its time runs out first. A merged branch's claims end.
//
// A restart loses nothing: the queue is in the store. A merge that was running when the
// relay stopped is made again from the start — its test command's process group (if still
// running) is ended, the scratch worktree reset — because nothing it did is visible before
// its last step (moving `into`), and that step is a compare-and-swap: if it had happened, the
// merge made again finds the branch already in `into` and answers `merged` with that commit.
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import type { Clock } from "../core/clock.ts";
import { RelayError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import type { Db } from "../store/db.ts";
import { endGroup } from "../tasks/process-groups.ts";
import type { Claims } from "./claims.ts";
import { commitIdentity, GitFailed, yes, type Git } from "./git-run.ts";
import { KeyedLock } from "./keyed-lock.ts";
import type { WorktreeLifecycle } from "./lifecycle.ts";
import { dirtyHolder, runMerge, tips } from "./merge-run.ts";
import { MergeStore, mergeView, type MergeOutcome, type MergeRow, type MergeView } from "./merge-store.ts";
import { statusOf } from "./status.ts";
import { runTestCommand } from "./test-command.ts";

export interface MergeQueueDeps {
  db: Db;
  clock: Clock;
  git: Git;
  relayName: string;
  lifecycle: Pick<WorktreeLifecycle, "store" | "folders" | "deleteIfMerged"> & {
    spares?: Pick<WorktreeLifecycle["spares"], "takeFor">;
  };
  claims: Pick<Claims, "endFor">;
  /** Secrets out of the test output (the relay's mask). */
  mask?(text: string): string;
  /** A test command running longer is stopped and the merge refused (default 30 min). */
  testTimeoutMs?: number;
  /** After a merge settled and was stored (phase B: the page's stream). */
  onSettled?(m: MergeView): void;
  /** Held while a merge lands in a folder (and while others read one): shared with overlap. */
  landing?: KeyedLock;
}

export interface MergeRequest {
  session: string;
  /** Default: the worktree's base. */
  into?: string | null;
  test?: string | null;
}

/** What `merge` / `wait` answer (a refusal is thrown as a RelayError instead). */
export type MergeAnswer = { merge_id: string; note?: string } & (
  | { status: "queued"; queuePosition: number }
  | Exclude<MergeOutcome, { status: "refused" }>
);

const NOTHING = "Nothing was merged.";
const TEST_MAX = 4000;

export class MergeQueue {
  readonly store: MergeStore;
  private draining = new Map<string, Promise<void>>();
  /** repo → the clean of its scratch worktree after the last tests there. */
  private cleaning = new Map<string, Promise<boolean>>();
  private waiters = new Map<string, { done: Promise<void>; resolve: () => void }>();
  /** repo and into → the read of into's folder under way: asks made together share one. */
  private holderReads = new Map<string, Promise<MergeOutcome | null>>();
  private shutdown = new AbortController();
  private readonly landing: KeyedLock;

  constructor(private readonly d: MergeQueueDeps) {
    this.store = new MergeStore(d.db);
    this.landing = d.landing ?? new KeyedLock();
  }

  /** Queues a merge of the session's branch; returns its id (and a note on what it leaves out).
   * `gate` runs once every check passed and before anything is queued (the approval card:
   * a merge that would be refused asks nobody). */
  async ask(req: MergeRequest, gate?: () => Promise<void>): Promise<{ mergeId: string; note?: string }> {
    const { git, clock } = this.d;
    const wt = this.d.lifecycle.store.get(req.session);
    if (!wt)
      throw bad(
        `Session ${req.session} does not work in a worktree of its own; merge takes a session started on a branch (create_session with branch, or the worktrees setting).`,
      );
    const detached = wt.base === wt.base_commit;
    const into = (req.into ?? (detached ? "" : wt.base)).trim();
    if (!into)
      throw bad(
        `${wt.branch} was made from a detached HEAD (${wt.base_commit.slice(0, 12)}); name the branch to merge into (into).`,
      );
    if (into === wt.branch)
      throw bad(`into names the session's own branch ${wt.branch}; name the branch to merge it into.`);
    if (into.startsWith("-")) throw bad(`No branch ${into.slice(0, 100)} in ${wt.repo}; into names a local branch.`);
    // What can be asked at once is: both tips in one process, the worktree's uncommitted
    // changes and whether `into` is checked out in a folder with changes of its own.
    const [[intoTip, tip], uncommitted, busy] = await Promise.all([
      tips(git, wt.repo, [into, wt.branch]),
      wt.removed_at === null ? statusOf(git, wt.path).then((e) => e.length) : 0,
      this.holderCheck(wt.repo, into),
    ]);
    if (!intoTip) throw bad(`No branch ${into.slice(0, 100)} in ${wt.repo}; into names a local branch.`);
    if (!tip) throw bad(`Branch ${wt.branch} no longer exists in ${wt.repo}.`);
    const left = uncommitted
      ? `${uncommitted} uncommitted ${uncommitted === 1 ? "change" : "changes"} in its worktree ${uncommitted === 1 ? "is" : "are"} not part of a merge (commit first)`
      : "";
    if (await yes(git, wt.repo, ["merge-base", "--is-ancestor", tip, intoTip])) {
      throw bad(`${wt.branch} has no commit that ${into} lacks${left ? `; ${left}` : ""}.`);
    }
    if (busy?.status === "refused") throw new RelayError(busy.code, busy.error);
    const test = typeof req.test === "string" && req.test.trim() ? req.test.trim() : null;
    if (test && test.length > TEST_MAX) throw bad(`test is at most ${TEST_MAX} characters.`);
    await gate?.();
    const id = newId("mrg");
    this.store.insert({
      id,
      repo: wt.repo,
      session_id: req.session,
      branch: wt.branch,
      into_branch: into,
      test,
      asked_at: clock.now(),
    });
    this.kick(wt.repo);
    return { mergeId: id, ...(left ? { note: `${left[0].toUpperCase()}${left.slice(1)}.` } : {}) };
  }

  /** Whether `into` is checked out in a folder with changes, for an ask: one read for the asks
   * made meanwhile (parallel agents asking at once read a 10k-file folder once, not each), and
   * alongside overlap reads, not while a merge lands there (a folder half brought forward
   * reads as changed). The run reads it again before landing, so a change since is refused too. */
  private holderCheck(repo: string, into: string): Promise<MergeOutcome | null> {
    const key = `${repo}\0${into}`;
    let read = this.holderReads.get(key);
    if (!read) {
      read = this.landing
        .shared(repo, () => dirtyHolder(this.d.git, repo, into))
        .finally(() => this.holderReads.delete(key));
      this.holderReads.set(key, read);
    }
    return read;
  }

  /** The merge's answer once it settled, or `queued` with its position when the clock reaches `until` first. */
  async wait(mergeId: string, until: number, signal?: AbortSignal): Promise<MergeAnswer> {
    const row = this.store.get(mergeId);
    if (!row)
      throw new RelayError(
        "REMOTE_RELAY_NOT_FOUND",
        `No merge ${mergeId.slice(0, 80)} on this relay. Nothing was waited for.`,
      );
    if (!isSettled(row)) {
      const timer = new AbortController();
      const stop = () => timer.abort();
      signal?.addEventListener("abort", stop, { once: true });
      await Promise.race([this.settledPromise(mergeId), this.d.clock.until(until, timer.signal)]);
      timer.abort();
      signal?.removeEventListener("abort", stop);
    }
    return this.answer(mergeId);
  }

  answer(mergeId: string): MergeAnswer {
    const row = this.store.get(mergeId);
    if (!row) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No merge ${mergeId.slice(0, 80)} on this relay.`);
    if (!isSettled(row)) return { merge_id: row.id, status: "queued", queuePosition: this.store.position(row) };
    const outcome = JSON.parse(row.result_json!) as MergeOutcome;
    if (outcome.status === "refused") throw new RelayError(outcome.code, outcome.error, { merge_id: row.id });
    return { merge_id: row.id, ...outcome };
  }

  /** The queue of a repository (or every one) as the page shows it. */
  queue(repo?: string): (MergeView & { queuePosition: number })[] {
    return this.store.waiting(repo).map((r) => ({ ...mergeView(r), queuePosition: this.store.position(r) }));
  }

  /** At start: merges that were running go back to the front of their queue (their test
   * command's processes ended first), and every queue runs again. */
  async resume(): Promise<void> {
    const waiting = this.store.waiting();
    for (const r of waiting.filter((w) => w.status === "running")) {
      if (r.test_pgid && groupWorksIn(r.test_pgid, this.d.lifecycle.folders.scratch(r.repo)))
        await endGroup(r.test_pgid);
      this.store.requeue(r.id);
    }
    for (const repo of new Set(waiting.map((w) => w.repo))) this.kick(repo);
  }

  /** Stops: a running test is ended and its merge stays for the next start. */
  async close(): Promise<void> {
    this.shutdown.abort();
    await Promise.all([...this.draining.values()]);
  }

  private kick(repo: string): void {
    if (this.draining.has(repo) || this.shutdown.signal.aborted) return;
    const p = this.drain(repo).finally(() => {
      this.draining.delete(repo);
      // Asked while the last one was being settled: its queue runs on.
      if (this.store.next(repo)) this.kick(repo);
    });
    this.draining.set(repo, p);
  }

  private async drain(repo: string): Promise<void> {
    const { clock, git } = this.d;
    // Read once for this run of the queue: its merges are made one after another just now.
    let identity: Promise<Record<string, string>> | null = null;
    for (let row = this.store.next(repo); row && !this.shutdown.signal.aborted; row = this.store.next(repo)) {
      const id = row.id;
      this.store.started(id, clock.now());
      let outcome: MergeOutcome;
      try {
        outcome = await runMerge(
          {
            git,
            folders: this.d.lifecycle.folders,
            relayName: this.d.relayName,
            exclusive: (fn) => this.landing.run(repo, fn),
            identity: () => (identity ??= commitIdentity(git, repo, this.d.relayName)),
            cleaned: (done) => this.cleaning.set(repo, done),
            takeSpare: async (path) => (await this.d.lifecycle.spares?.takeFor(repo, path)) ?? false,
            isClean: async () => {
              const done = this.cleaning.get(repo);
              this.cleaning.delete(repo);
              return (await done) ?? false;
            },
            runTest: (command, cwd) =>
              runTestCommand(command, cwd, {
                clock,
                timeoutMs: this.d.testTimeoutMs ?? 30 * 60_000,
                mask: this.d.mask,
                signal: this.shutdown.signal,
                onStart: (pgid) => this.store.testStarted(id, pgid),
              }),
          },
          { id, repo, sessionId: row.session_id, branch: row.branch, into: row.into_branch, test: row.test },
        );
      } catch (e) {
        outcome = {
          status: "refused",
          code: "REMOTE_RELAY_INVALID_INPUT",
          error: `git failed while merging ${row.branch} into ${row.into_branch}: ${e instanceof GitFailed ? e.message : String(e)}. ${NOTHING}`,
        };
      }
      // Stopped by a shutdown: it stays running in the store, and is made again at the next start.
      if (this.shutdown.signal.aborted) return;
      this.settle(row, outcome);
    }
  }

  private settle(row: MergeRow, outcome: MergeOutcome): void {
    const { db, clock } = this.d;
    const now = clock.now();
    db.transaction(() => {
      this.store.settled(row.id, outcome, now);
      if (outcome.status === "merged") {
        this.d.lifecycle.store.markMerged(row.session_id, row.into_branch, outcome.commit, now);
        this.d.claims.endFor(row.session_id, "merged", row.repo);
      }
    })();
    const w = this.waiters.get(row.id);
    this.waiters.delete(row.id);
    w?.resolve();
    this.d.onSettled?.(mergeView(this.store.get(row.id)!));
    const wt = this.d.lifecycle.store.get(row.session_id);
    if (outcome.status === "merged" && wt && wt.removed_at !== null)
      void this.d.lifecycle.deleteIfMerged(wt).catch(() => {});
  }

  private settledPromise(id: string): Promise<void> {
    let w = this.waiters.get(id);
    if (!w) {
      let resolve!: () => void;
      const done = new Promise<void>((r) => (resolve = r));
      w = { done, resolve };
      this.waiters.set(id, w);
    }
    return w.done;
  }
}

const bad = (text: string) => new RelayError("REMOTE_RELAY_INVALID_INPUT", `${text} ${NOTHING}`);
const isSettled = (r: MergeRow) => r.status !== "queued" && r.status !== "running";

/** Whether a process of group `pgid` still works inside `folder`: only then is it the test
 * command a crashed relay left (a process id may have been reused since). */
function groupWorksIn(pgid: number, folder: string): boolean {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return false;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      if (pgrp !== pgid) continue;
      const cwd = readlinkSync(`/proc/${name}/cwd`);
      if (cwd === folder || cwd.startsWith(`${folder}/`)) return true;
    } catch {}
  }
  return false;
}
