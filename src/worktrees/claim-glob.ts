// Claim globs and when two of them overlap. Two claims overlap exactly when some path could
// match both — decided, not guessed: each glob is a small automaton over characters and the
// two are run in step (a product automaton); they overlap when both can reach their end on
// the same input. No path needs to exist, so a claim on `src/**/*.ts` meets one on
// `src/api/*` (src/api/x.ts) but not one on `docs/**`.
//
// The syntax: `*` any run of characters within one folder name, `?` one such character,
// `[abc]` `[a-z]` `[!x]` one of a set, `**` as a whole segment any number of folders
// (`src/**/x.ts` matches src/x.ts and src/a/b/x.ts), `{a,b}` either, `\` escapes. A pattern
// also covers everything under what it names: `src/api` claims the folder and its files.

/** Sorted, inclusive code point ranges; `neg` takes the complement; nothing matches "/" in
 * a set that says `noSlash`. */
interface CharSet {
  ranges: [number, number][];
  neg: boolean;
  noSlash: boolean;
}

type Step =
  | { t: "char"; set: CharSet } // one character
  | { t: "star" } // [^/]*
  | { t: "dirs" }; // (.*/)? : `**/`, or `/**` at the end as "/" + (.*/)? + "*"-ish tail, see compile

const SLASH = 47;
const lit = (c: number): CharSet => ({ ranges: [[c, c]], neg: false, noSlash: false });
const NOT_SLASH: CharSet = { ranges: [[SLASH, SLASH]], neg: true, noSlash: false };
const ANY: CharSet = { ranges: [], neg: true, noSlash: false };

function inSet(s: CharSet, c: number): boolean {
  if (s.noSlash && c === SLASH) return false;
  let hit = false;
  for (const [lo, hi] of s.ranges) if (c >= lo && c <= hi) hit = true;
  return hit !== s.neg;
}

/** Whether one character lies in both sets. Membership only changes at a range's ends, so
 * trying each end (and the point after it) over both sets decides it. */
function meet(a: CharSet, b: CharSet): boolean {
  const points = new Set<number>([0, SLASH, SLASH + 1]);
  for (const [lo, hi] of [...a.ranges, ...b.ranges]) points.add(lo).add(hi + 1);
  for (const c of points) if (inSet(a, c) && inSet(b, c)) return true;
  return false;
}

/** One pattern without braces, as steps; accepting at steps.length. */
function steps(pattern: string): Step[] {
  const out: Step[] = [];
  const cps = [...pattern].map((ch) => ch.codePointAt(0)!);
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i];
    const atStart = i === 0 || cps[i - 1] === SLASH;
    if (c === 42 /* * */ && cps[i + 1] === 42) {
      const end = i + 2 === cps.length;
      if (atStart && cps[i + 2] === SLASH) {
        out.push({ t: "dirs" }); // `**/`: zero or more folders
        i += 2;
        continue;
      }
      if (atStart && end) {
        // a trailing `**`: anything below, folders included
        out.push({ t: "dirs" }, { t: "star" });
        i += 1;
        continue;
      }
      out.push({ t: "star" }); // `**` inside a name means `*`
      i += 1;
      continue;
    }
    if (c === 42) out.push({ t: "star" });
    else if (c === 63 /* ? */) out.push({ t: "char", set: NOT_SLASH });
    else if (c === 92 /* \ */ && i + 1 < cps.length) out.push({ t: "char", set: lit(cps[++i]) });
    else if (c === 91 /* [ */) {
      const parsed = charClass(cps, i);
      if (parsed) {
        out.push({ t: "char", set: parsed.set });
        i = parsed.end;
      } else out.push({ t: "char", set: lit(c) });
    } else out.push({ t: "char", set: lit(c) });
  }
  return out;
}

function charClass(cps: number[], start: number): { set: CharSet; end: number } | null {
  let i = start + 1;
  const neg = cps[i] === 33 /* ! */ || cps[i] === 94; /* ^ */
  if (neg) i++;
  const ranges: [number, number][] = [];
  let first = true;
  for (; i < cps.length; i++) {
    if (cps[i] === 93 /* ] */ && !first) return { set: { ranges, neg, noSlash: true }, end: i };
    first = false;
    const lo = cps[i] === 92 && i + 1 < cps.length ? cps[++i] : cps[i];
    if (cps[i + 1] === 45 /* - */ && i + 2 < cps.length && cps[i + 2] !== 93) {
      const hi = cps[i + 2] === 92 && i + 3 < cps.length ? cps[i + 3] : cps[i + 2];
      i += cps[i + 2] === 92 ? 3 : 2;
      ranges.push([Math.min(lo, hi), Math.max(lo, hi)]);
    } else ranges.push([lo, lo]);
  }
  return null; // no closing bracket: a literal "["
}

/** `{a,b}` alternatives spelled out (innermost groups last), at most `max` patterns. */
export function expandBraces(pattern: string, max = 64): string[] {
  let depth = 0;
  let open = -1;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") {
      i++;
      continue;
    }
    if (ch === "{") {
      if (depth++ === 0) open = i;
    } else if (ch === "}" && depth > 0 && --depth === 0) {
      const inner = pattern.slice(open + 1, i);
      const parts: string[] = [];
      let d = 0;
      let from = 0;
      for (let k = 0; k < inner.length; k++) {
        if (inner[k] === "\\") k++;
        else if (inner[k] === "{") d++;
        else if (inner[k] === "}") d--;
        else if (inner[k] === "," && d === 0) {
          parts.push(inner.slice(from, k));
          from = k + 1;
        }
      }
      parts.push(inner.slice(from));
      if (parts.length < 2) continue; // `{x}`: literal braces
      const out: string[] = [];
      for (const p of parts) {
        for (const e of expandBraces(pattern.slice(0, open) + p + pattern.slice(i + 1), max)) {
          out.push(e);
          if (out.length >= max) return out;
        }
      }
      return out;
    }
  }
  return [pattern];
}

export interface Glob {
  source: string;
  alternatives: Step[][];
}

export function compileGlob(pattern: string): Glob {
  const alternatives: Step[][] = [];
  for (const p of expandBraces(pattern)) {
    alternatives.push(steps(p));
    // What a pattern names, it also covers below: `src/api` → `src/api/**`.
    if (!p.endsWith("**")) alternatives.push(steps(`${p}/**`));
  }
  return { source: pattern, alternatives };
}

type Move = { set: CharSet; to: number };

/** The ε-free view of state i of a step list: where it may move on a character, and which
 * states it stands for (ε-closure through `star`/`dirs`, which may match nothing). */
function closure(s: Step[], i: number): number[] {
  const out = [i];
  while (i < s.length && s[i].t !== "char") out.push(++i);
  return out;
}

function moves(s: Step[], i: number): Move[] {
  const st = s[i];
  if (!st) return [];
  if (st.t === "char") return [{ set: st.set, to: i + 1 }];
  if (st.t === "star") return [{ set: NOT_SLASH, to: i }];
  return [
    { set: ANY, to: i },
    { set: lit(SLASH), to: i + 1 },
  ];
}

/** Whether some path matches both step lists (product automaton search). */
function intersect(a: Step[], b: Step[]): boolean {
  const seen = new Set<number>();
  const key = (i: number, j: number) => i * (b.length + 1) + j;
  const queue: [number, number][] = [];
  const push = (i: number, j: number) => {
    for (const x of closure(a, i)) {
      for (const y of closure(b, j)) {
        const k = key(x, y);
        if (seen.has(k)) continue;
        seen.add(k);
        queue.push([x, y]);
      }
    }
  };
  push(0, 0);
  while (queue.length) {
    const [i, j] = queue.pop()!;
    if (i === a.length && j === b.length) return true;
    for (const ma of moves(a, i)) for (const mb of moves(b, j)) if (meet(ma.set, mb.set)) push(ma.to, mb.to);
  }
  return false;
}

export function globsOverlap(a: Glob, b: Glob): boolean {
  return a.alternatives.some((x) => b.alternatives.some((y) => intersect(x, y)));
}

/** Whether `path` (relative to the repository root) is covered by the glob. */
export function globMatches(g: Glob, path: string): boolean {
  const cps = [...path].map((ch) => ch.codePointAt(0)!);
  return g.alternatives.some((s) => {
    let states = new Set(closure(s, 0));
    for (const c of cps) {
      const next = new Set<number>();
      for (const i of states)
        for (const m of moves(s, i)) if (inSet(m.set, c)) for (const x of closure(s, m.to)) next.add(x);
      if (!next.size) return false;
      states = next;
    }
    return states.has(s.length);
  });
}

/** A claim path as given → its normal form, or why it cannot be one. */
export function normalizeClaimPath(raw: string): { path: string } | { error: string } {
  const p = raw.trim();
  if (!p) return { error: "an empty path" };
  if (p.length > 300) return { error: `a path longer than 300 characters (${p.slice(0, 40)}…)` };
  if (p.includes("\0")) return { error: "a path with a NUL character" };
  if (p.startsWith("/") || /^[A-Za-z]:/.test(p))
    return { error: `"${p}" is absolute; claims take paths relative to the repository root` };
  const segs = p.split("/").filter((s) => s !== "" && s !== ".");
  if (segs.includes("..")) return { error: `"${p}" leaves the repository (..)` };
  if (!segs.length) return { error: `"${p}" names the repository root; claim "**" to claim everything` };
  return { path: segs.join("/") };
}
