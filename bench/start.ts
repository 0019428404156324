// Start → serving and idle RSS alone (issue 14), quicker than the whole scale bench: boots
// `bin/oar start` on an empty data folder and on the cached store of N sessions
// (bench/lib/scale-store.ts), BOOTS times each, and prints per boot the wall time until
// the listening line, the CPU the process used until then (user + system: what the start
// costs, less the machine's load) and the load average; then the idle RSS of the last boot.
// `node --import tsx bench/start.ts [sizes…]` (default 0 and 100000; 0 is the empty folder).
// START_BOOTS (default 7), START_IDLE_MS (default 30000; 0 skips the RSS). START_ROOTS: other
// checkouts (built) to compare, comma-separated; their boots alternate with this one's, so
// each sees the same load.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { freePort, realSleep } from "../test/helpers/relay-process.ts";
import { cpuMs, machineLine, rssMB, summarize } from "./lib/stats.ts";
import { copyStore, scaleStore } from "./lib/scale-store.ts";
import { distFresh } from "../scripts/dist-fresh.mjs";
import { stopProc } from "./lib/proc.ts";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const ROOTS = [
  ROOT,
  ...(process.env.START_ROOTS ?? "")
    .split(",")
    .filter(Boolean)
    .map((r) => resolve(r)),
];
const SIZES = process.argv.slice(2).length ? process.argv.slice(2).map(Number) : [0, 100_000];
const BOOTS = Number(process.env.START_BOOTS ?? 7);
const IDLE_MS = Number(process.env.START_IDLE_MS ?? 30_000);
const load = () => loadavg()[0].toFixed(1);

interface Booted {
  proc: ChildProcess;
  ms: number;
  cpu: number;
}

async function boot(root: string, dataDir: string): Promise<Booted> {
  const port = await freePort();
  const t0 = performance.now();
  const proc = spawn(
    join(root, "bin", "oar"),
    ["start", "--port", String(port), "--data", dataDir, "--name", "bench", "--test-clock"],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  return await new Promise<Booted>((res, rej) => {
    proc.stdout!.on("data", (d: Buffer) => {
      output += d;
      if (/listening on http/.test(output)) res({ proc, ms: performance.now() - t0, cpu: cpuMs(proc.pid!) });
    });
    proc.stderr!.on("data", (d) => (output += d));
    proc.once("exit", (code) => rej(new Error(`relay exited (${code}) before listening: ${output.slice(-1500)}`)));
  });
}

const stop = (b: Booted, signal?: NodeJS.Signals) => stopProc(b.proc, signal);

console.log(machineLine());
for (const root of ROOTS)
  console.log(`${root}: bin/oar runs ${distFresh(root) ? "dist/" : "the sources through tsx (dist/ stale)"}`);
const dirs: string[] = [];
try {
  for (const size of SIZES) {
    const store = size ? scaleStore(size, console.log) : null;
    const label = size ? `${size.toLocaleString("en")} sessions` : "empty";
    const runs = ROOTS.map((root) => {
      // The store is copied once per checkout and booted BOOTS times (SIGKILL between:
      // nothing runs yet); an empty folder is new each time, so every boot makes its store.
      const storeDir = store ? mkdtempSync(join(tmpdir(), `oar-start-${size}-`)) : "";
      if (store) {
        dirs.push(storeDir);
        copyStore(store, storeDir);
      }
      return {
        root,
        storeDir,
        walls: [] as number[],
        cpus: [] as number[],
        loads: [] as string[],
        last: undefined as Booted | undefined,
      };
    });
    for (let i = 0; i < BOOTS; i++) {
      for (const run of runs) {
        const dir = run.storeDir || mkdtempSync(join(tmpdir(), "oar-start-empty-"));
        if (!store) dirs.push(dir);
        run.loads.push(load());
        const b = await boot(run.root, dir);
        run.walls.push(b.ms);
        run.cpus.push(b.cpu);
        // Every checkout's last boot stays up for its idle RSS.
        if (i < BOOTS - 1) await stop(b);
        else run.last = b;
      }
    }
    for (const run of runs) {
      const w = summarize(run.walls);
      const c = summarize(run.cpus);
      const who = ROOTS.length > 1 ? ` [${run.root}]` : "";
      console.log(
        `${label}${who}: wall ${run.walls.map((v) => v.toFixed(0)).join(", ")} ms (p50 ${w.p50.toFixed(0)}); CPU ${run.cpus.join(", ")} ms (p50 ${c.p50}); load ${run.loads.join(", ")}`,
      );
    }
    if (IDLE_MS > 0) {
      await realSleep(IDLE_MS);
      for (const run of runs) {
        const rss: number[] = [];
        for (let i = 0; i < 5; i++) {
          rss.push(rssMB(run.last!.proc.pid!));
          await realSleep(200);
        }
        const who = ROOTS.length > 1 ? ` [${run.root}]` : "";
        console.log(
          `${label}${who}: idle RSS after ${IDLE_MS / 1000} s ${summarize(rss).p50.toFixed(1)} MB (load ${load()})`,
        );
      }
    }
    for (const run of runs) await stop(run.last!, "SIGTERM");
  }
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
