// When the relay sees a change in a worktree, the changed paths it knows of are compared with
// the other parties' (the other worktrees of the repository, the main folder's uncommitted
// changes), each party's paths kept from the last time it was read:
// - a change whose paths the relay knows (a write through it, a tool call's diff) reads only
//   those paths again, in that worktree and in the main folder — one `git status` each limited
//   to them, which also says where HEAD is (a commit since: its commits are read again,
//   tree to tree, no file read);
// - a change it does not know the paths of (the end of a turn: a shell command may have
//   written anything) reads the whole worktree and the main folder again.
// New pairs are stored before they are told, so each pair and set of paths is told once, also
// across restarts.
import { createHash } from "node:crypto";
import { isAbsolute, relative, resolve } from "node:path";
import type { Clock } from "../core/clock.ts";
import type { Db } from "../store/db.ts";
import { changedPaths, committedPaths, uncommittedPaths, type WorktreeRef } from "./changes.ts";
import type { Git } from "./git-run.ts";
import { KeyedLock } from "./keyed-lock.ts";
import { findOverlaps, MAIN, type OverlapPair, type Party } from "./overlap.ts";
import { statusOfPaths } from "./status.ts";
import type { WorktreeRow } from "./worktree-store.ts";

export interface Overlap extends OverlapPair {
  repo: string;
}

export interface OverlapDeps {
  db: Db;
  clock: Clock;
  git: Git;
  worktrees: { get(sessionId: string): WorktreeRow | undefined; live(repo: string): WorktreeRow[] };
  /** Called once per new overlap, after it is stored: phase B raises the `overlap` event here. */
  onOverlap?(o: Overlap): void;
  /** Held by a merge while it lands in a folder (what is read meanwhile would be half of it);
   * reads hold it shared, alongside each other. */
  landing?: KeyedLock;
}

/** What a party was last seen to change: its commits' paths (at `head`) and its uncommitted ones. */
interface Seen {
  head: string | null;
  committed: ReadonlySet<string>;
  uncommitted: Set<string>;
}

/** The parties to read again: a session (or MAIN) → the paths to read (null: all of it). */
type Fresh = Map<string, Set<string> | null>;

export class OverlapWatch {
  private seen = new Map<string, Seen>();
  /** A party being read whole → what reads at paths saw meanwhile (path → changed). */
  private during = new Map<string, Map<string, boolean>>();
  /** repo → the main folder's uncommitted paths as last read. */
  private main = new Map<string, Set<string>>();
  private latest = new Map<string, Overlap[]>();
  private pending = new Map<string, { fresh: Fresh; done: Promise<Overlap[]> }>();
  private lock = new KeyedLock();
  private readonly landing: KeyedLock;

  constructor(private readonly d: OverlapDeps) {
    this.landing = d.landing ?? new KeyedLock();
  }

  /** A change seen in `sessionId`'s worktree: at `paths` (absolute, or relative to the
   * worktree) when the relay knows them, else anywhere in it. Resolves with the overlaps told
   * for the first time (changes seen while a check waits join it). */
  changed(sessionId: string, paths?: readonly string[]): Promise<Overlap[]> {
    const row = this.d.worktrees.get(sessionId);
    if (!row || row.removed_at !== null) return Promise.resolve([]);
    if (paths && !paths.length) return Promise.resolve([]);
    const inside = paths ? within(row.path, paths) : null;
    // Known paths of a worktree and a main folder read before: at once, not behind a whole read.
    if (inside && this.seen.has(sessionId) && this.main.has(row.repo)) return this.atPaths(row.repo, row, inside);
    return this.check(row.repo, [sessionId], inside);
  }

  /** A change seen in the repository's main folder (by a session working there): at `paths`
   * (absolute, or relative to it) when known. */
  mainChanged(repo: string, paths?: readonly string[]): Promise<Overlap[]> {
    if (paths && !paths.length) return Promise.resolve([]);
    const inside = paths ? within(repo, paths) : null;
    if (inside && this.main.has(repo)) return this.atPaths(repo, null, inside);
    return this.check(repo, [], inside, true);
  }

  /** Reads `paths` of the worktree `w` (null: only the main folder) and of the main folder,
   * alongside any other read (a whole read running meanwhile keeps what this one saw). */
  private atPaths(repo: string, w: WorktreeRow | null, paths: string[]): Promise<Overlap[]> {
    const set = new Set(paths);
    return this.landing.shared(repo, async () => {
      await Promise.all([
        w ? this.readWorktree(w, set).catch(() => {}) : null,
        this.readMain(repo, set).catch(() => {}),
      ]);
      return this.conclude(repo);
    });
  }

  /** Reads `fresh` (and whichever worktree was never read) again and stores new overlaps;
   * `paths` (relative to the folders): only those paths of them. */
  check(repo: string, fresh: string[] = [], paths: string[] | null = null, mainToo = false): Promise<Overlap[]> {
    let next = this.pending.get(repo);
    if (!next) {
      const entry = { fresh: new Map() as Fresh, done: Promise.resolve([] as Overlap[]) };
      entry.done = this.lock.run(repo, () => {
        this.pending.delete(repo);
        return this.run(repo, entry.fresh);
      });
      this.pending.set(repo, entry);
      next = entry;
    }
    const add = (key: string) => {
      const had = next.fresh.get(key);
      if (had === null || !paths) next.fresh.set(key, null);
      else next.fresh.set(key, new Set([...(had ?? []), ...paths]));
    };
    for (const id of fresh) add(id);
    // The main folder is read with every check: whole when a whole worktree is, else at the paths.
    if (mainToo || fresh.length || !paths) add(MAIN);
    return next.done;
  }

  /** The overlaps of the last check that involve `sessionId` (the page marks both sessions). */
  currentFor(sessionId: string): Overlap[] {
    const row = this.d.worktrees.get(sessionId);
    return (row ? (this.latest.get(row.repo) ?? []) : []).filter((o) => o.a === sessionId || o.b === sessionId);
  }

  private async run(repo: string, fresh: Fresh): Promise<Overlap[]> {
    return this.landing.shared(repo, async () => {
      await this.read(repo, fresh);
      return this.conclude(repo);
    });
  }

  /** The pairs now, from what each party was last seen to change; new ones stored and told. */
  private conclude(repo: string): Overlap[] {
    const live = this.d.worktrees.live(repo);
    const parties: Party[] = live
      .filter((w) => this.seen.has(w.session_id))
      .map((w) => {
        const s = this.seen.get(w.session_id)!;
        return { key: w.session_id, paths: new Set([...s.committed, ...s.uncommitted]) };
      });
    const main = this.main.get(repo);
    if (main) parties.push({ key: MAIN, paths: main });
    const pairs = findOverlaps(parties).map((p) => ({ repo, ...p }));
    this.latest.set(repo, pairs);
    const told = this.remember(pairs);
    for (const o of told) this.d.onOverlap?.(o);
    return told;
  }

  private async read(repo: string, fresh: Fresh): Promise<void> {
    const live = this.d.worktrees.live(repo);
    const reads: Promise<void>[] = live
      .filter((w) => fresh.has(w.session_id) || !this.seen.has(w.session_id))
      .map(async (w) => {
        try {
          await this.readWorktree(w, fresh.get(w.session_id) ?? null);
        } catch {
          // Unreadable just now (being removed): it keeps what it was last seen to change.
        }
      });
    if (fresh.has(MAIN) || !this.main.has(repo))
      reads.push(this.readMain(repo, this.main.has(repo) ? (fresh.get(MAIN) ?? null) : null).catch(() => {}));
    await Promise.all(reads);
  }

  /** A worktree read again: whole (`paths` null, or never read), or at `paths` only. */
  private async readWorktree(w: WorktreeRow, paths: Set<string> | null): Promise<void> {
    const { git } = this.d;
    const ref: WorktreeRef = { path: w.path, base: w.base, baseCommit: w.base_commit };
    const key = w.session_id;
    if (!this.seen.has(key) || !paths) {
      const all = await this.whole(key, () => changedPaths(lowPriority(git), ref));
      this.seen.set(key, { head: all.head, committed: all.committed, uncommitted: all.uncommitted });
      return;
    }
    const now = await statusOfPaths(git, w.path, [...paths]);
    const had = this.seen.get(key)!;
    // A commit since it was last read: its commits' paths are read again (no file read).
    const committed = now.head === had.head ? had.committed : (await committedPaths(git, ref)).committed;
    const seen = this.seen.get(key)!;
    this.seen.set(key, { head: now.head, committed, uncommitted: this.atPathsSeen(key, seen.uncommitted, paths, now) });
  }

  /** A whole read of `key`'s paths: what reads at paths see meanwhile wins over it (they
   * may have looked after it did). */
  private async whole<T extends { uncommitted: Set<string> }>(key: string, read: () => Promise<T>): Promise<T> {
    const during = new Map<string, boolean>();
    this.during.set(key, during);
    try {
      const all = await read();
      for (const [p, changed] of during) changed ? all.uncommitted.add(p) : all.uncommitted.delete(p);
      return all;
    } finally {
      if (this.during.get(key) === during) this.during.delete(key);
    }
  }

  /** `had` with `paths` as a read of them found them (noted for a whole read running meanwhile). */
  private atPathsSeen(key: string, had: ReadonlySet<string>, paths: Set<string>, now: { uncommitted: Set<string> }) {
    const out = new Set(had);
    const during = this.during.get(key);
    for (const p of paths) {
      const changed = now.uncommitted.has(p);
      if (changed) out.add(p);
      else out.delete(p);
      during?.set(p, changed);
    }
    for (const p of now.uncommitted) out.add(p);
    return out;
  }

  private async readMain(repo: string, paths: Set<string> | null): Promise<void> {
    const { git } = this.d;
    const key = `${MAIN}\0${repo}`;
    if (!paths || !this.main.has(repo)) {
      const all = await this.whole(key, async () => ({ uncommitted: await uncommittedPaths(lowPriority(git), repo) }));
      this.main.set(repo, all.uncommitted);
      return;
    }
    const now = await statusOfPaths(git, repo, [...paths]);
    this.main.set(repo, this.atPathsSeen(key, this.main.get(repo) ?? new Set(), paths, now));
  }

  /** Stores the pairs; returns those not stored before. */
  private remember(pairs: Overlap[]): Overlap[] {
    const insert = this.d.db.prepare(
      "INSERT OR IGNORE INTO worktree_overlaps (repo, a, b, paths_key, paths_json, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    const now = this.d.clock.now();
    return this.d.db.transaction(() =>
      pairs.filter(
        (o) =>
          insert.run(
            o.repo,
            o.a,
            o.b,
            createHash("sha256").update(o.paths.join("\n")).digest("hex"),
            JSON.stringify(o.paths),
            now,
          ).changes === 1,
      ),
    )();
  }

  /** A worktree went away: its paths are no longer kept. */
  forget(sessionId: string): void {
    this.seen.delete(sessionId);
  }
}

/** Whole reads (a turn's end: ~10k files stat'ed in two folders) run at the lowest CPU
 * priority: they take no core from the reply being delivered or an agent's next step; reads
 * at known paths (what shows an overlap quickly) keep the normal one. */
const lowPriority =
  (git: Git): Git =>
  (args, opts) =>
    git(args, { ...opts, background: true });

/** `paths` (absolute, or relative to `folder`) relative to `folder`; null when one lies
 * outside it (a folder reached by another name): then the whole folder is read. */
function within(folder: string, paths: readonly string[]): string[] | null {
  const out = new Set<string>();
  for (const p of paths) {
    const rel = relative(folder, resolve(folder, p));
    if (rel === "" || rel === ".." || rel.startsWith("../") || isAbsolute(rel)) return null;
    out.add(rel);
  }
  return [...out];
}
