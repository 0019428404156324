// Overlap (contract §10.1): two unmerged worktrees of one repository — or one of them and the
// main folder's uncommitted changes — that change the same paths. Finding the pairs is a
// pure function of each party's changed paths; the event's words are here too, in the line
// style of every relay event (watching/event-lines.ts).
import { sessionRef } from "../watching/event-lines.ts";

/** A session's worktree (key: its id) or the main folder (key: MAIN). */
export interface Party {
  key: string;
  paths: ReadonlySet<string>;
}

export const MAIN = "main";

export interface OverlapPair {
  /** a < b (MAIN sorts as its key). */
  a: string;
  b: string;
  /** Sorted. */
  paths: string[];
}

export function findOverlaps(parties: Party[]): OverlapPair[] {
  const out: OverlapPair[] = [];
  const sorted = [...parties].sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length; j++) {
      const [small, large] =
        sorted[i].paths.size <= sorted[j].paths.size
          ? [sorted[i].paths, sorted[j].paths]
          : [sorted[j].paths, sorted[i].paths];
      const shared: string[] = [];
      for (const p of small) if (large.has(p)) shared.push(p);
      if (shared.length) out.push({ a: sorted[i].key, b: sorted[j].key, paths: shared.sort() });
    }
  }
  return out;
}

/** The paths as one text, at most `max` named: `src/x.ts, src/y.ts` / `…, and 12 more`. */
export function pathList(paths: string[], max = 20): string {
  const shown = paths.slice(0, max).join(", ");
  return paths.length > max ? `${shown}, and ${paths.length - max} more` : shown;
}

export type Side = { id: string; title: string } | { mainFolder: string };

const ref = (s: Side) =>
  "mainFolder" in s ? `uncommitted changes in the main folder ${s.mainFolder}` : sessionRef(s.title, s.id);

/** The event as the watchers of `self` read it (without the `[relay event] ` prefix):
 * `session "A" (ses_…): overlap with session "B" (ses_…): src/x.ts, src/y.ts`. */
export function overlapLine(self: { id: string; title: string }, other: Side, paths: string[]): string {
  return `${sessionRef(self.title, self.id)}: overlap with ${ref(other)}: ${pathList(paths)}`;
}
