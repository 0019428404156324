// When the relay sees a change in a worktree (a write through it, a tool call's diff, the end
// of a turn), that worktree's changed paths and the main folder's uncommitted ones are read
// again; the other worktrees' paths come from the last time each was read (each is read again
// when a change of its own is seen). New pairs are stored before they are told, so each pair
// and set of paths is told once, also across restarts.
import { createHash } from "node:crypto";
import type { Clock } from "../core/clock.ts";
import type { Db } from "../store/db.ts";
import { changedPaths, uncommittedPaths } from "./changes.ts";
import type { Git } from "./git-run.ts";
import { KeyedLock } from "./keyed-lock.ts";
import { findOverlaps, MAIN, type OverlapPair, type Party } from "./overlap.ts";
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
  /** Held by a merge while it lands in a folder: what is read meanwhile would be half of it. */
  landing?: KeyedLock;
}

export class OverlapWatch {
  private paths = new Map<string, ReadonlySet<string>>();
  private latest = new Map<string, Overlap[]>();
  private pending = new Map<string, { fresh: Set<string>; done: Promise<Overlap[]> }>();
  private lock = new KeyedLock();
  private readonly landing: KeyedLock;

  constructor(private readonly d: OverlapDeps) {
    this.landing = d.landing ?? new KeyedLock();
  }

  /** A change seen in `sessionId`'s worktree. Resolves with the overlaps told for the first
   * time (changes seen while a check waits join it). */
  changed(sessionId: string): Promise<Overlap[]> {
    const row = this.d.worktrees.get(sessionId);
    if (!row || row.removed_at !== null) return Promise.resolve([]);
    return this.check(row.repo, [sessionId]);
  }

  /** Reads `fresh` (and whichever worktree was never read) again and stores new overlaps. */
  check(repo: string, fresh: string[] = []): Promise<Overlap[]> {
    let next = this.pending.get(repo);
    if (!next) {
      const entry = { fresh: new Set<string>(), done: Promise.resolve([] as Overlap[]) };
      entry.done = this.lock.run(repo, () => {
        this.pending.delete(repo);
        return this.run(repo, entry.fresh);
      });
      this.pending.set(repo, entry);
      next = entry;
    }
    for (const id of fresh) next.fresh.add(id);
    return next.done;
  }

  /** The overlaps of the last check that involve `sessionId` (the page marks both sessions). */
  currentFor(sessionId: string): Overlap[] {
    const row = this.d.worktrees.get(sessionId);
    return (row ? (this.latest.get(row.repo) ?? []) : []).filter((o) => o.a === sessionId || o.b === sessionId);
  }

  private async run(repo: string, fresh: Set<string>): Promise<Overlap[]> {
    const pairs = await this.landing.run(repo, () => this.read(repo, fresh));
    this.latest.set(repo, pairs);
    const told = this.remember(pairs);
    for (const o of told) this.d.onOverlap?.(o);
    return told;
  }

  private async read(repo: string, fresh: Set<string>): Promise<Overlap[]> {
    const { git } = this.d;
    const live = this.d.worktrees.live(repo);
    await Promise.all(
      live
        .filter((w) => fresh.has(w.session_id) || !this.paths.has(w.session_id))
        .map(async (w) => {
          try {
            this.paths.set(
              w.session_id,
              await changedPaths(git, { path: w.path, base: w.base, baseCommit: w.base_commit }),
            );
          } catch {
            // Unreadable just now (being removed): it keeps what it was last seen to change.
          }
        }),
    );
    const parties: Party[] = live
      .filter((w) => this.paths.has(w.session_id))
      .map((w) => ({ key: w.session_id, paths: this.paths.get(w.session_id)! }));
    try {
      parties.push({ key: MAIN, paths: await uncommittedPaths(git, repo) });
    } catch {}
    return findOverlaps(parties).map((p) => ({ repo, ...p }));
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
    this.paths.delete(sessionId);
  }
}
