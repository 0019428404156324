// Claims (contract §10.1): a conversation says which paths of a repository it is working on
// for a while; another session's claim on an overlapping path is refused, and so is another
// session's write to a claimed path (phase B enforces it through `check`). A claim ends on
// release, when it runs out (the relay's clock), when its conversation is archived or
// deleted, and when its branch is merged.
import { iso, MINUTE, HOUR, type Clock } from "../core/clock.ts";
import { RelayError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import type { Db } from "../store/db.ts";
import { compileGlob, globMatches, globsOverlap, normalizeClaimPath, type Glob } from "./claim-glob.ts";

export const CLAIMS_PER_CONVERSATION = 20;
export const CLAIM_MINUTES = { min: 1, max: 480, default: 60 };
const PATHS_PER_CLAIM = 50;
const NOTE_MAX = 500;

export type ClaimEnd = "released" | "expired" | "archived" | "deleted" | "merged";

interface ClaimRow {
  id: string;
  session_id: string;
  repo: string;
  paths_json: string;
  note: string | null;
  created_at: number;
  ends_at: number;
  ended_at: number | null;
  end_reason: ClaimEnd | null;
}

export interface ClaimView {
  id: string;
  repo: string;
  paths: string[];
  holder: { session: string; title: string | null };
  note: string | null;
  createdAt: string;
  endsAt: string;
  active: boolean;
  endedAt?: string;
  endReason?: ClaimEnd;
}

export interface ClaimsDeps {
  db: Db;
  clock: Clock;
  titleOf(sessionId: string): string | null;
}

export interface ClaimInput {
  session: string;
  repo: string;
  paths: unknown;
  minutes?: unknown;
  note?: unknown;
}

export class Claims {
  private globs = new Map<string, Glob[]>();

  constructor(private readonly d: ClaimsDeps) {}

  claim(input: ClaimInput, nothing = "Nothing was claimed."): { claim_id: string; claim: ClaimView } {
    const { paths, minutes, note } = this.parse(input, nothing);
    const { db, clock } = this.d;
    return db.transaction(() => {
      this.refuse(input, paths, nothing);
      const now = clock.now();
      const row: ClaimRow = {
        id: newId("clm"),
        session_id: input.session,
        repo: input.repo,
        paths_json: JSON.stringify(paths),
        note,
        created_at: now,
        ends_at: now + minutes * MINUTE,
        ended_at: null,
        end_reason: null,
      };
      db.prepare(
        "INSERT INTO claims (id, session_id, repo, paths_json, note, created_at, ends_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ).run(row.id, row.session_id, row.repo, row.paths_json, row.note, row.created_at, row.ends_at);
      return { claim_id: row.id, claim: this.view(row) };
    })();
  }

  /** Throws what `claim` would refuse now, and claims nothing (the approval card comes after). */
  precheck(input: ClaimInput, nothing = "Nothing was claimed."): void {
    this.refuse(input, this.parse(input, nothing).paths, nothing);
  }

  private refuse(input: ClaimInput, paths: string[], nothing: string): void {
    this.sweep();
    const mine = this.d.db
      .prepare("SELECT COUNT(*) AS n FROM claims WHERE session_id = ? AND ended_at IS NULL")
      .get(input.session) as { n: number };
    if (mine.n >= CLAIMS_PER_CONVERSATION) {
      throw new RelayError(
        "REMOTE_RELAY_LIMIT",
        `This conversation holds ${mine.n} claims, the most it may hold (${CLAIMS_PER_CONVERSATION}); release one first. ${nothing}`,
      );
    }
    const globs = paths.map(compileGlob);
    for (const other of this.liveRows(input.repo)) {
      if (other.session_id === input.session) continue;
      const theirs = this.globsOf(other);
      const hit = globs.find((g) => theirs.some((t) => globsOverlap(g, t)));
      if (hit) {
        const v = this.view(other);
        throw new RelayError(
          "REMOTE_RELAY_CLAIMED",
          `${hit.source} overlaps a claim of ${holderWords(v)}: ${v.paths.join(", ")}${untilWords(v)}. ${nothing}`,
          { claim: v },
        );
      }
    }
  }

  private parse(input: ClaimInput, nothing: string): { paths: string[]; minutes: number; note: string | null } {
    const bad = (why: string) => new RelayError("REMOTE_RELAY_INVALID_INPUT", `claim ${why}. ${nothing}`);
    const raw = typeof input.paths === "string" ? [input.paths] : input.paths;
    if (!Array.isArray(raw) || raw.length === 0)
      throw bad('needs paths: globs relative to the repository root, such as ["src/api/**"]');
    if (raw.length > PATHS_PER_CLAIM) throw bad(`takes at most ${PATHS_PER_CLAIM} paths (${raw.length} given)`);
    const paths: string[] = [];
    for (const p of raw) {
      if (typeof p !== "string") throw bad("takes paths as strings");
      const n = normalizeClaimPath(p);
      if ("error" in n) throw bad(`cannot take ${n.error}`);
      if (!paths.includes(n.path)) paths.push(n.path);
    }
    const minutes = input.minutes ?? CLAIM_MINUTES.default;
    if (
      typeof minutes !== "number" ||
      !Number.isInteger(minutes) ||
      minutes < CLAIM_MINUTES.min ||
      minutes > CLAIM_MINUTES.max
    ) {
      throw bad(
        `minutes is a whole number from ${CLAIM_MINUTES.min} to ${CLAIM_MINUTES.max} (default ${CLAIM_MINUTES.default})`,
      );
    }
    if (input.note != null && typeof input.note !== "string") throw bad("takes note as text");
    const note = typeof input.note === "string" && input.note.trim() ? input.note.trim() : null;
    if (note && note.length > NOTE_MAX) throw bad(`note is at most ${NOTE_MAX} characters`);
    return { paths, minutes, note };
  }

  /** Ends the caller's claim `claimId`, or all of its claims in `repo` with "all" (every repository when `repo` is left out). */
  release(session: string, claimId: string, repo?: string): { released: ClaimView[] } {
    const { db } = this.d;
    return db.transaction(() => {
      this.sweep();
      if (claimId === "all") {
        const rows = (
          repo === undefined
            ? db.prepare("SELECT * FROM claims WHERE session_id = ? AND ended_at IS NULL").all(session)
            : db
                .prepare("SELECT * FROM claims WHERE session_id = ? AND repo = ? AND ended_at IS NULL")
                .all(session, repo)
        ) as ClaimRow[];
        return { released: rows.map((r) => this.end(r, "released")) };
      }
      const row = db.prepare("SELECT * FROM claims WHERE id = ?").get(claimId) as ClaimRow | undefined;
      if (!row)
        throw new RelayError(
          "REMOTE_RELAY_NOT_FOUND",
          `No claim ${claimId.slice(0, 80)} (list_claims lists them). Nothing was released.`,
        );
      if (row.session_id !== session) {
        throw new RelayError(
          "REMOTE_RELAY_FORBIDDEN",
          `Claim ${row.id} belongs to ${holderWords(this.view(row))}; only that conversation can release it. Nothing was released.`,
        );
      }
      return { released: row.ended_at === null ? [this.end(row, "released")] : [] };
    })();
  }

  /** Live claims of `repo`, and those that ended within the last hour (`active: false`). */
  list(repo: string): ClaimView[] {
    this.sweep();
    const since = this.d.clock.now() - HOUR;
    const rows = this.d.db
      .prepare("SELECT * FROM claims WHERE repo = ? AND (ended_at IS NULL OR ended_at > ?) ORDER BY created_at")
      .all(repo, since) as ClaimRow[];
    return rows.map((r) => this.view(r));
  }

  /** Who holds `path` (relative to the root of `repo`) against a write by `writer`: the
   * live claim of another session covering it, or null. */
  check(repo: string, path: string, writer: string): ClaimView | null {
    const now = this.d.clock.now();
    const rel = normalizeClaimPath(path);
    if ("error" in rel) return null;
    for (const row of this.liveRows(repo)) {
      if (row.session_id === writer || row.ends_at <= now) continue;
      if (this.globsOf(row).some((g) => globMatches(g, rel.path))) return this.view(row);
    }
    return null;
  }

  /** Ends every live claim of a conversation (archive, delete) or of it in one repository (its branch merged). */
  endFor(session: string, reason: Exclude<ClaimEnd, "released" | "expired">, repo?: string): number {
    const { db } = this.d;
    return db.transaction(() => {
      this.sweep();
      const rows = (
        repo === undefined
          ? db.prepare("SELECT * FROM claims WHERE session_id = ? AND ended_at IS NULL").all(session)
          : db.prepare("SELECT * FROM claims WHERE session_id = ? AND repo = ? AND ended_at IS NULL").all(session, repo)
      ) as ClaimRow[];
      for (const r of rows) this.end(r, reason);
      return rows.length;
    })();
  }

  /** Repositories with a live claim (phase B: which folders a write must be checked in). */
  repos(): string[] {
    this.sweep();
    return (
      this.d.db.prepare("SELECT DISTINCT repo FROM claims WHERE ended_at IS NULL").all() as { repo: string }[]
    ).map((r) => r.repo);
  }

  private liveRows(repo: string): ClaimRow[] {
    return this.d.db
      .prepare("SELECT * FROM claims WHERE repo = ? AND ended_at IS NULL AND ends_at > ?")
      .all(repo, this.d.clock.now()) as ClaimRow[];
  }

  /** Claims that ran out are ended at the time they ran out (read by the relay's clock). */
  private sweep(): void {
    this.d.db
      .prepare("UPDATE claims SET ended_at = ends_at, end_reason = 'expired' WHERE ended_at IS NULL AND ends_at <= ?")
      .run(this.d.clock.now());
  }

  private end(row: ClaimRow, reason: ClaimEnd): ClaimView {
    const at = this.d.clock.now();
    this.d.db
      .prepare("UPDATE claims SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL")
      .run(at, reason, row.id);
    this.globs.delete(row.id);
    return this.view({ ...row, ended_at: at, end_reason: reason });
  }

  private globsOf(row: ClaimRow): Glob[] {
    let g = this.globs.get(row.id);
    if (!g) {
      g = (JSON.parse(row.paths_json) as string[]).map(compileGlob);
      this.globs.set(row.id, g);
    }
    return g;
  }

  private view(r: ClaimRow): ClaimView {
    return {
      id: r.id,
      repo: r.repo,
      paths: JSON.parse(r.paths_json) as string[],
      holder: { session: r.session_id, title: this.d.titleOf(r.session_id) },
      note: r.note,
      createdAt: iso(r.created_at)!,
      endsAt: iso(r.ends_at)!,
      active: r.ended_at === null,
      ...(r.ended_at !== null ? { endedAt: iso(r.ended_at)!, endReason: r.end_reason ?? undefined } : {}),
    };
  }
}

const holderWords = (v: ClaimView) =>
  `session ${v.holder.title !== null ? `"${v.holder.title}" ` : ""}(${v.holder.session})`;
const untilWords = (v: ClaimView) => ` until ${v.endsAt}${v.note ? ` ("${v.note}")` : ""}`;

/** Why a write to `path` is refused (phase B: `fs/write_text_file`, the relay's own agents'
 * file tools, a CLI's permission request): who holds it, its note and when it ends. */
export function claimedWords(v: ClaimView, path: string): string {
  return `${path} is claimed by ${holderWords(v)}${untilWords(v)}; write elsewhere or ask that session to release it.`;
}
