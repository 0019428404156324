// The worktrees domain tied to the rest of the relay (phase B of issue 20), so app/build.ts builds
// it in one line: overlap events to the watchers of both sessions, a change seen (a turn's
// end, a write through the relay, a tool call's diff) checked for overlaps, archive/delete
// ending claims and removing worktrees, and the files the relay serves to its agents over
// ACP (`fs/read_text_file`, `fs/write_text_file`) with claims enforced on every write.
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync, closeSync, openSync, constants } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type { BusEvent } from "../core/bus.ts";
import type { Clock } from "../core/clock.ts";
import { RelayError } from "../core/errors.ts";
import { isInside, leadsInside, readInside, resolveLinks } from "../core/paths.ts";
import type { Db } from "../store/db.ts";
import { git } from "../cloud/git.ts";
import { claimedWords, type ClaimView } from "./claims.ts";
import type { Removal } from "./lifecycle.ts";
import type { MergeView } from "./merge-store.ts";
import { MAIN, overlapLine } from "./overlap.ts";
import type { Overlap } from "./overlap-watch.ts";
import { Worktrees } from "./worktrees.ts";

interface SessionFacts {
  id: string;
  title: string;
  cwd: string;
}

export interface WorktreeWiringDeps {
  db: Db;
  clock: Clock;
  dataDir: string;
  relayName: string;
  bus: { on(fn: (e: BusEvent) => void): unknown; emit(e: BusEvent): void };
  mask(text: string): string;
  session(id: string): SessionFacts | undefined;
  /** Raises relay event `overlap` with `line` for the watchers of `sessionId` but those in
   * `skip`; answers the watchers told. */
  raise(sessionId: string, e: { key: string; line: string }, skip: ReadonlySet<string>): string[];
}

/** An edit a CLI asks permission for (ACP `session/request_permission`), as far as claims care. */
export interface EditRequest {
  toolCall?: { kind?: string | null; locations?: { path?: string }[] | null; content?: unknown[] | null } | null;
}

export class WorktreeWiring {
  readonly worktrees: Worktrees;
  private ending = new Map<string, Promise<Removal | null>>();
  /** Sessions that took a spare and have no reply yet → what makes the next spare. */
  private firstReply = new Map<string, () => void>();

  constructor(private readonly d: WorktreeWiringDeps) {
    this.worktrees = new Worktrees({
      db: d.db,
      clock: d.clock,
      git,
      dataDir: d.dataDir,
      relayName: d.relayName,
      titleOf: (id) => d.session(id)?.title ?? null,
      mask: (t) => d.mask(t),
      onOverlap: (o) => this.tell(o),
      onMergeSettled: (m: MergeView) => d.bus.emit({ type: "session.updated", sessionId: m.session }),
      // The next spare is made once the session that took one has its first reply (at most 10 s).
      spareAfter: (sessionId) =>
        new Promise<void>((resolve) => {
          this.firstReply.set(sessionId, resolve);
          setTimeout(resolve, 10_000).unref();
        }).finally(() => this.firstReply.delete(sessionId)),
    });
    d.bus.on((e) => {
      if (e.type === "turn.ended") this.firstReply.get(e.sessionId)?.();
      // After the turn's reply is announced (session.updated is emitted right after this):
      // the whole read's git processes are not started while the reply is being delivered.
      if (e.type === "turn.ended") setImmediate(() => this.sawChange(e.sessionId));
      else if (e.type === "session.archived") this.end(e.sessionId, "archived");
      else if (e.type === "session.deleted") this.end(e.sessionId, "deleted");
    });
  }

  /** What archiving or deleting the session did to its worktree (its `note`), once done. */
  endedNote(sessionId: string): Promise<string | undefined> {
    return (this.ending.get(sessionId) ?? Promise.resolve(null)).then(
      (r) => r?.note || undefined,
      () => undefined,
    );
  }

  private end(sessionId: string, reason: "archived" | "deleted"): void {
    const p = this.worktrees.ended(sessionId, reason);
    p.catch((err) => console.error(`[worktrees] ending ${sessionId}:`, err));
    this.ending.set(sessionId, p);
    void p.finally(() =>
      setTimeout(() => this.ending.get(sessionId) === p && this.ending.delete(sessionId), 60_000).unref(),
    );
  }

  /** A change the relay saw in the session's folder: its worktree (or the main folder it
   * works in) is read again for overlaps — at `paths` (absolute, or relative to the session's
   * folder) when the relay knows them (a write through it, a tool call's diff), else whole. */
  sawChange(sessionId: string, paths?: readonly string[]): void {
    const w = this.worktrees;
    const row = w.lifecycle.store.get(sessionId);
    const s = paths ? this.d.session(sessionId) : undefined;
    const abs = paths && s ? paths.map((p) => absoluteIn(s.cwd, p)) : undefined;
    const done =
      row && row.removed_at === null ? w.overlaps.changed(sessionId, abs) : this.mainFolderChange(sessionId, abs);
    done.catch((err) => console.error(`[worktrees] overlap check for ${sessionId}:`, err));
  }

  private mainFolderChange(sessionId: string, paths?: string[]): Promise<unknown> {
    const s = this.d.session(sessionId);
    if (!s) return Promise.resolve();
    const repo = this.repoOfMainFolder(s.cwd);
    return repo ? this.worktrees.overlaps.mainChanged(repo, paths?.map(safeResolve)) : Promise.resolve();
  }

  /** The repository whose main folder holds `cwd`, among those with live worktrees. */
  private repoOfMainFolder(cwd: string): string | null {
    const real = safeResolve(cwd);
    for (const repo of new Set(this.worktrees.lifecycle.store.live().map((r) => r.repo))) {
      if (real === repo || isInside(repo, real)) return repo;
    }
    return null;
  }

  /** `overlap` for the watchers of both sides, a watcher of both once. */
  private tell(o: Overlap): void {
    const key = `overlap:${o.a}:${o.b}:${createHash("sha256")
      .update(`${o.repo}\0${o.paths.join("\n")}`)
      .digest("hex")
      .slice(0, 16)}`;
    const told = new Set<string>();
    const say = (self: string, line: string) => {
      for (const w of this.d.raise(self, { key, line }, told)) told.add(w);
    };
    const a = this.d.session(o.a);
    if (!a) return;
    if (o.b === MAIN) {
      say(a.id, overlapLine(a, { mainFolder: o.repo }, o.paths));
      for (const m of this.sessionsInMainFolder(o.repo)) say(m.id, overlapLine(m, a, o.paths));
      return;
    }
    const b = this.d.session(o.b);
    say(a.id, overlapLine(a, b ?? { id: o.b, title: o.b }, o.paths));
    if (b) say(b.id, overlapLine(b, a, o.paths));
  }

  /** Sessions working in the repository's main folder (not in a worktree of it). */
  private sessionsInMainFolder(repo: string): SessionFacts[] {
    const rows = this.d.db
      .prepare("SELECT id, title, cwd FROM sessions WHERE archived_at IS NULL AND deleted_at IS NULL")
      .all() as SessionFacts[];
    return rows.filter((s) => {
      const real = safeResolve(s.cwd);
      return (real === repo || isInside(repo, real)) && !this.worktrees.lifecycle.store.get(s.id);
    });
  }

  /** The claim of another session that a write of `file` by `sessionId` runs into, or null. */
  claimAgainst(sessionId: string, file: string): { claim: ClaimView; path: string } | null {
    const at = this.worktrees.whereIs(file);
    if (!at) return null;
    const claim = this.worktrees.claims.check(at.repo, at.path, sessionId);
    return claim ? { claim, path: at.path } : null;
  }

  /** `fs/read_text_file` of the session's agent: a file inside its folder. */
  readFile(sessionId: string, path: string, line?: number | null, limit?: number | null): string {
    const folder = this.folderOf(sessionId);
    const got = readInside(folder, absoluteIn(folder, path));
    if ("refused" in got)
      throw new RelayError(
        got.refused === "outside" ? "REMOTE_RELAY_FORBIDDEN" : "REMOTE_RELAY_NOT_FOUND",
        got.refused === "outside" ? `${path} is outside the session's folder ${folder}.` : `${path} does not exist.`,
      );
    const text = got.bytes.toString("utf8");
    if (!line && !limit) return text;
    const lines = text.split("\n");
    const from = Math.max(1, line ?? 1) - 1;
    return lines.slice(from, limit ? from + limit : undefined).join("\n");
  }

  /** `fs/write_text_file` of the session's agent: inside its folder (missing folders made),
   * refused with REMOTE_RELAY_CLAIMED when another session claims the path. */
  writeFile(sessionId: string, path: string, content: string): void {
    const folder = this.folderOf(sessionId);
    const abs = absoluteIn(folder, path);
    const real = leadsInside(folder, abs);
    if (!real)
      throw new RelayError(
        "REMOTE_RELAY_FORBIDDEN",
        `${path} is outside the session's folder ${folder}. Nothing was written.`,
      );
    const hit = this.claimAgainst(sessionId, real);
    if (hit) throw new RelayError("REMOTE_RELAY_CLAIMED", claimedWords(hit.claim, hit.path), { claim: hit.claim });
    mkdirSync(dirname(real), { recursive: true });
    const fd = openSync(real, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o666);
    try {
      writeFileSync(fd, content);
    } finally {
      closeSync(fd);
    }
    this.sawChange(sessionId, [real]);
  }

  /** Why a CLI's permission request for an edit is refused (another session's claim), or null. */
  refuseEdit(sessionId: string, req: EditRequest): string | null {
    const call = req.toolCall;
    if (!call || (call.kind !== "edit" && call.kind !== "delete" && call.kind !== "move")) return null;
    const s = this.d.session(sessionId);
    if (!s) return null;
    const paths = [
      ...(call.locations ?? []).map((l) => l?.path),
      ...(call.content ?? []).map((c) =>
        c && typeof c === "object" && (c as { type?: unknown }).type === "diff"
          ? (c as { path?: unknown }).path
          : undefined,
      ),
    ].filter((p): p is string => typeof p === "string" && p !== "");
    for (const p of paths) {
      const hit = this.claimAgainst(sessionId, absoluteIn(s.cwd, p));
      if (hit) return claimedWords(hit.claim, hit.path);
    }
    return null;
  }

  private folderOf(sessionId: string): string {
    const s = this.d.session(sessionId);
    if (!s) throw new RelayError("REMOTE_RELAY_NOT_FOUND", `No session ${sessionId}.`);
    return safeResolve(s.cwd);
  }
}

const absoluteIn = (folder: string, p: string): string => (isAbsolute(p) ? p : resolve(folder, p));

function safeResolve(p: string): string {
  try {
    return resolveLinks(resolve(p));
  } catch {
    return resolve(p);
  }
}
