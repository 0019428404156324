import {
  appendFileSync,
  closeSync,
  openSync,
  readSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

// Task output files under DATA/tasks, kept within two limits (contract §9.3): each task keeps
// at most `taskOutputMaxMb` (its tail: the end is what the console and read_task_output
// show), and all tasks together at most `taskOutputTotalMb` (the files of tasks that ended
// longest ago go first). Sizes are counted in memory as output arrives, so a chunk costs
// no stat of the folder.

export interface OutputLimits {
  perTaskBytes: number;
  totalBytes: number;
}

/** First line of a file whose beginning was dropped. */
export const DROPPED_LINE = (mb: number) =>
  `[… earlier output dropped: the relay keeps the last ${mb} MB of a task's output]\n`;

export class OutputFiles {
  private sizes = new Map<string, number>();
  private total = 0;

  constructor(
    dir: string,
    private limits: () => OutputLimits,
    /** Output files of ended tasks, the longest ended first (for the total limit). */
    private endedOldestFirst: () => string[],
  ) {
    for (const name of readdirSync(dir)) {
      try {
        const size = statSync(join(dir, name)).size;
        this.sizes.set(join(dir, name), size);
        this.total += size;
      } catch {}
    }
  }

  get totalBytes(): number {
    return this.total;
  }

  append(path: string, chunk: string): void {
    appendFileSync(path, chunk, { mode: 0o600 });
    const add = Buffer.byteLength(chunk);
    const size = (this.sizes.get(path) ?? 0) + add;
    this.sizes.set(path, size);
    this.total += add;
    const { perTaskBytes, totalBytes } = this.limits();
    if (size > perTaskBytes) this.keepTail(path, perTaskBytes);
    if (this.total > totalBytes) this.shrinkTotal(totalBytes, path);
  }

  /** Rewrites the file as its last ~3/4 of the limit (whole lines), so trimming happens once
   * per quarter of the limit, not on every chunk. */
  private keepTail(path: string, limit: number): void {
    const size = this.sizes.get(path) ?? statSync(path).size;
    const keep = Math.floor(limit * 0.75);
    const buf = Buffer.alloc(keep);
    const fd = openSync(path, "r");
    try {
      readSync(fd, buf, 0, keep, size - keep);
    } finally {
      closeSync(fd);
    }
    const nl = buf.indexOf(10);
    const tail = nl >= 0 && nl < keep - 1 ? buf.subarray(nl + 1) : buf;
    const head = Buffer.from(DROPPED_LINE(Math.round(limit / 1024 / 1024)));
    const tmp = `${path}.trim`;
    writeFileSync(tmp, Buffer.concat([head, tail]), { mode: 0o600 });
    renameSync(tmp, path);
    const now = head.length + tail.length;
    this.total += now - size;
    this.sizes.set(path, now);
  }

  private shrinkTotal(limit: number, current: string): void {
    for (const path of this.endedOldestFirst()) {
      if (this.total <= limit) return;
      if (path !== current) this.remove(path);
    }
  }

  /** Deletes a task's output file (its read window ended, its session was deleted). */
  remove(path: string): void {
    rmSync(path, { force: true });
    this.total -= this.sizes.get(path) ?? 0;
    this.sizes.delete(path);
  }
}
