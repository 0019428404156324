// The end of a task's output, as read_task_output returns it. Repeated lines (retry
// loops, watchers printing the same status) are collapsed first so the window shows n
// different things instead of n copies of one; a run that straddles the window's edge
// is therefore counted whole.

export const TAIL_MIN = 1;
export const TAIL_MAX = 500;
export const TAIL_DEFAULT = 50;

export interface Tail {
  tail: string[];
  /** Something came before the lines shown. */
  truncated: boolean;
}

export function clampTailSize(n: number): number {
  if (Number.isNaN(n)) return TAIL_DEFAULT;
  if (!Number.isFinite(n)) return n > 0 ? TAIL_MAX : TAIL_MIN;
  return Math.min(TAIL_MAX, Math.max(TAIL_MIN, Math.floor(n)));
}

export function collapseRepeats(lines: string[]): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    let j = i + 1;
    while (j < lines.length && lines[j] === lines[i]) j++;
    const count = j - i;
    if (count === 1) out.push(lines[i]);
    // An empty line repeated would otherwise read " [×3]" with a stray leading space.
    else out.push(lines[i] === "" ? `[×${count}]` : `${lines[i]} [×${count}]`);
    i = j;
  }
  return out;
}

export function tailLines(lines: string[], n: number): Tail {
  const size = clampTailSize(n);
  const entries = collapseRepeats(lines);
  const start = Math.max(0, entries.length - size);
  return { tail: entries.slice(start), truncated: start > 0 };
}
