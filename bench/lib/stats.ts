// Small helpers shared by the bench scripts: timing, percentiles, the results table and
// the machine the figures came from. No dependencies: benches must run on a bare clone.
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";

export interface Summary {
  n: number;
  mean: number;
  p50: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentile over sorted values (p in 0..100). */
export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function summarize(values: number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / (sorted.length || 1);
  return {
    n: sorted.length,
    mean,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

/** Runs `fn` `warmup` times untimed, then `n` times timed (ms each), one after another.
 * Stops early once `budgetMs` has passed, so a slow machine still ends in time. */
export async function timeCalls(
  n: number,
  warmup: number,
  fn: (i: number) => Promise<unknown>,
  budgetMs = Infinity,
): Promise<number[]> {
  const end = performance.now() + budgetMs;
  for (let i = 0; i < warmup; i++) await fn(i);
  const out: number[] = [];
  for (let i = 0; i < n && performance.now() < end; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

export interface Row {
  metric: string;
  unit: "ms" | "µs" | "MB";
  summary: Summary;
  /** The figure must be at most this (p50 and p99 both); none for a row that only explains another. */
  target?: number;
}

const fmt = (v: number, unit: string) =>
  `${unit === "MB" ? v.toFixed(1) : v < 10 ? v.toFixed(2) : v.toFixed(1)} ${unit}`;

export const withinTarget = (r: Row): boolean =>
  r.target === undefined || (r.summary.p50 <= r.target && r.summary.p99 <= r.target);

/** A plain-text (and Markdown-compatible) table of rows. */
export function table(rows: Row[]): string {
  const head = ["metric", "n", "mean", "p50", "p99", "target", "within target"];
  const body = rows.map((r) => [
    r.metric,
    String(r.summary.n),
    fmt(r.summary.mean, r.unit),
    fmt(r.summary.p50, r.unit),
    fmt(r.summary.p99, r.unit),
    r.target === undefined ? "—" : `≤ ${r.target} ${r.unit}`,
    r.target === undefined ? "—" : withinTarget(r) ? "yes" : "no",
  ]);
  return cellTable(head, body);
}

/** A plain-text (and Markdown-compatible) table of cells already written out. */
export function cellTable(head: string[], body: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  return [line(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...body.map(line)].join("\n");
}

export function machine(): { cpu: string; cores: number; node: string; memTotalMB: number } {
  let cpu = cpus()[0]?.model ?? "unknown";
  try {
    cpu = /model name\s*:\s*(.+)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.trim() ?? cpu;
  } catch {}
  let memTotalMB = NaN;
  try {
    memTotalMB = Number(/MemTotal:\s*(\d+)/.exec(readFileSync("/proc/meminfo", "utf8"))?.[1]) / 1024;
  } catch {}
  return { cpu, cores: cpus().length, node: process.version, memTotalMB };
}

export function machineLine(): string {
  const m = machine();
  return `machine: ${m.cpu} · ${m.cores} cores · ${Math.round(m.memTotalMB)} MB RAM · node ${m.node} · ${process.platform}/${process.arch}`;
}

/** The 1-minute load average: figures taken on a busy machine read high. */
export const loadLine = (): string =>
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`;

/** Resident memory of a process in MB (VmRSS from /proc/PID/status). */
export function rssMB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s*(\d+)\s*kB/.exec(status)?.[1]);
  return kb / 1024;
}

/** CPU time (user + system, ms) a process has used so far, from /proc/PID/stat. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  return (Number(fields[11]) + Number(fields[12])) * tick;
}

/** Child process ids of a process (Linux). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** What a bench found beside its rows: lines printed under the table, and whether the checks
 * they report held (false fails the bench like a missed target). */
export interface Findings {
  rows: Row[];
  notes: string[];
  ok: boolean;
}

/** Runs a bench's `main`, prints its table with the machine and load, and exits non-zero when
 * a row misses its target, a finding does not hold, or the bench fails. */
export function runBench(main: () => Promise<Row[] | Findings>): void {
  const started = Date.now();
  main()
    .then((found) => {
      const { rows, notes, ok } = Array.isArray(found) ? { rows: found, notes: [], ok: true } : found;
      console.log(table(rows));
      for (const n of notes) console.log(n);
      console.log(machineLine());
      console.log(
        `${loadLine()} · date ${new Date().toISOString()} · took ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      process.exit(ok && rows.every(withinTarget) ? 0 : 1);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
