// Start → serving and idle RSS alone (issue 14), quicker than the whole scale bench: boots
// `bin/oar start` on an empty data folder and on the cached store of N sessions
// (bench/lib/scale-store.ts), BOOTS times each, and prints per boot the wall time until
// the listening line, the CPU the process used until then (user + system: what the start
// costs, less the machine's load) and the load average; then the idle RSS of the last boot.
// `node --import tsx bench/start.ts [sizes…]` (default 0 and 100000; 0 is the empty folder).
// START_BOOTS (default 7), START_IDLE_MS (default 30000; 0 skips the RSS).
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

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const BIN = join(ROOT, "bin", "oar");
const SIZES = process.argv.slice(2).length ? process.argv.slice(2).map(Number) : [0, 100_000];
const BOOTS = Number(process.env.START_BOOTS ?? 7);
const IDLE_MS = Number(process.env.START_IDLE_MS ?? 30_000);
const load = () => loadavg()[0].toFixed(1);

interface Booted {
  proc: ChildProcess;
  ms: number;
  cpu: number;
}

async function boot(dataDir: string): Promise<Booted> {
  const port = await freePort();
  const t0 = performance.now();
  const proc = spawn(BIN, ["start", "--port", String(port), "--data", dataDir, "--name", "bench", "--test-clock"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
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

async function stop(b: Booted, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  if (b.proc.exitCode !== null || b.proc.signalCode !== null) return;
  const exited = new Promise((r) => b.proc.once("exit", r));
  b.proc.kill(signal);
  await exited;
}

console.log(`${machineLine()} · bin/oar runs ${distFresh(ROOT) ? "dist/" : "the sources through tsx (dist/ stale)"}`);
const dirs: string[] = [];
try {
  for (const size of SIZES) {
    const store = size ? scaleStore(size, console.log) : null;
    const walls: number[] = [];
    const cpus: number[] = [];
    const loads: string[] = [];
    let last!: Booted;
    // The store is copied once and booted BOOTS times (SIGKILL between: nothing runs yet);
    // an empty folder is new each time, so every boot makes its store and token.
    const storeDir = store ? mkdtempSync(join(tmpdir(), `oar-start-${size}-`)) : "";
    if (store) {
      dirs.push(storeDir);
      copyStore(store, storeDir);
    }
    for (let i = 0; i < BOOTS; i++) {
      const dir = storeDir || mkdtempSync(join(tmpdir(), "oar-start-empty-"));
      if (!store) dirs.push(dir);
      loads.push(load());
      last = await boot(dir);
      walls.push(last.ms);
      cpus.push(last.cpu);
      if (i < BOOTS - 1) await stop(last);
    }
    const w = summarize(walls);
    const c = summarize(cpus);
    const label = size ? `${size.toLocaleString("en")} sessions` : "empty";
    console.log(`${label}: wall ${walls.map((v) => v.toFixed(0)).join(", ")} ms (p50 ${w.p50.toFixed(0)}); CPU ${cpus.join(", ")} ms (p50 ${c.p50}); load ${loads.join(", ")}`);
    if (IDLE_MS > 0) {
      await realSleep(IDLE_MS);
      const rss: number[] = [];
      for (let i = 0; i < 5; i++) {
        rss.push(rssMB(last.proc.pid!));
        await realSleep(200);
      }
      console.log(`${label}: idle RSS after ${IDLE_MS / 1000} s ${summarize(rss).p50.toFixed(1)} MB (load ${load()})`);
    }
    await stop(last, "SIGTERM");
  }
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
