// Idle RSS after sessions are created (issue 18, item 21): a real relay as `npm start` runs it
// (bin/oar start from the compiled bundle, the real clock, an empty data folder), left idle,
// its RSS read; then SESSIONS sessions created through POST /api/sessions (scripted, no agent
// runs), the relay left idle again for the same time, its RSS read again. RSS is VmRSS from
// /proc/PID/status, the median of 10 readings over the last 5 s of each idle wait.
// `node --import tsx bench/session-rss.ts` (about 2.5 min). SESSION_RSS_IDLE_MS (default
// 60000), SESSION_RSS_SESSIONS (default 1000). SESSION_RSS_ROOTS: other checkouts to compare
// (comma-separated); their relays run at the same time as this one's and get their sessions
// interleaved with it, so every relay sees the same load.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, realSleep } from "../test/helpers/relay-process.ts";
import { loadLine, machineLine, rssMB, summarize } from "./lib/stats.ts";
import { distFresh } from "../scripts/dist-fresh.mjs";
import { stopProc } from "./lib/proc.ts";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const ROOTS = [ROOT, ...(process.env.SESSION_RSS_ROOTS ?? "").split(",").filter(Boolean).map((r) => resolve(r))];
const IDLE_MS = Number(process.env.SESSION_RSS_IDLE_MS ?? 60_000);
const SESSIONS = Number(process.env.SESSION_RSS_SESSIONS ?? 1000);
const TARGET_MB = 90;
const READINGS = 10;

interface Relay {
  root: string;
  proc: ChildProcess;
  url: string;
  token: string;
  dataDir: string;
  output: string;
  /** VmRSS every 5 s from the start, for the trace printed at the end. */
  trace: number[];
}

async function boot(root: string): Promise<Relay> {
  // As `npm start` does: build when the sources are newer than dist/, then bin/oar start.
  const built = spawnSync(process.execPath, ["scripts/build.mjs", "--if-stale"], { cwd: root, stdio: "inherit" });
  if (built.status !== 0 || !distFresh(root)) throw new Error(`${root}: no fresh build in dist/`);
  const dataDir = mkdtempSync(join(tmpdir(), "oar-session-rss-"));
  const port = await freePort();
  const proc = spawn(join(root, "bin", "oar"), ["start", "--port", String(port), "--data", dataDir, "--name", "bench"], { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, OAR_REQUIRE_DIST: "1" } });
  const relay: Relay = { root, proc, url: `http://127.0.0.1:${port}`, token: "", dataDir, output: "", trace: [] };
  proc.stdout!.on("data", (d) => (relay.output += d));
  proc.stderr!.on("data", (d) => (relay.output += d));
  for (const end = Date.now() + 60_000; !/listening on http/.test(relay.output); await realSleep(50)) {
    if (proc.exitCode !== null || Date.now() > end) throw new Error(`relay did not start: ${relay.output.slice(-1500)}`);
  }
  relay.token = readFileSync(join(dataDir, "owner-token"), "utf8").trim();
  const tick = setInterval(() => relay.proc.exitCode === null && relay.trace.push(rssMB(relay.proc.pid!)), 5000);
  relay.proc.once("exit", () => clearInterval(tick));
  return relay;
}

async function createSession(r: Relay, i: number): Promise<void> {
  const res = await fetch(`${r.url}/api/sessions`, {
    method: "POST",
    headers: { authorization: `Bearer ${r.token}`, "content-type": "application/json" },
    body: JSON.stringify({ provider: "scripted", title: `session ${i}`, cwd: r.dataDir }),
  });
  if (res.status !== 201) throw new Error(`POST /api/sessions answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

/** Waits out the idle time, then the median of READINGS readings over its last 5 s. */
async function idleRss(relays: Relay[]): Promise<number[]> {
  await realSleep(Math.max(0, IDLE_MS - 5000));
  const readings = relays.map(() => [] as number[]);
  for (let i = 0; i < READINGS; i++) {
    relays.forEach((r, j) => readings[j].push(rssMB(r.proc.pid!)));
    await realSleep(5000 / READINGS);
  }
  return readings.map((v) => summarize(v).p50);
}

const mb = (v: number) => `${v.toFixed(1)} MB`;

console.log(machineLine());
const relays: Relay[] = [];
let exit = 0;
try {
  for (const root of ROOTS) relays.push(await boot(root));
  console.log(`${relays.length} relay(s) started (dist/, real clock); ${loadLine()}; idle ${IDLE_MS / 1000} s`);
  const fresh = await idleRss(relays);
  console.log(`fresh idle RSS read; ${loadLine()}; creating ${SESSIONS} sessions in each`);
  const t0 = Date.now();
  for (let i = 0; i < SESSIONS; i++) await Promise.all(relays.map((r) => createSession(r, i)));
  const created = relays.map((r) => rssMB(r.proc.pid!));
  console.log(`created in ${((Date.now() - t0) / 1000).toFixed(1)} s; ${loadLine()}; idle ${IDLE_MS / 1000} s`);
  const after = await idleRss(relays);
  console.log(`after idle RSS read; ${loadLine()}\n`);

  const head = ["relay", "fresh, idle", "just after creating", `${SESSIONS} created + ${IDLE_MS / 1000} s idle`, "grown", "per session", `target ≤ ${TARGET_MB} MB`];
  const rows = relays.map((r, i) => [
    r.root === ROOT ? "this checkout" : r.root,
    mb(fresh[i]),
    mb(created[i]),
    mb(after[i]),
    mb(after[i] - fresh[i]),
    `${(((after[i] - fresh[i]) * 1024) / SESSIONS).toFixed(1)} KB`,
    after[i] <= TARGET_MB ? "yes" : "no",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  console.log([line(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n"));
  for (const r of relays) {
    console.log(`\n${r.root === ROOT ? "this checkout" : r.root}: RSS every 5 s (MB): ${r.trace.map((v) => v.toFixed(0)).join(" ")}`);
    const trims = r.output.split("\n").filter((l) => l.startsWith("[memory]"));
    if (trims.length) console.log(trims.join("\n"));
  }
  exit = after[0] <= TARGET_MB ? 0 : 1;
} catch (err) {
  console.error(err);
  for (const r of relays) console.error(`relay output tail (${r.root}):\n${r.output.slice(-2000)}`);
  exit = 2;
} finally {
  for (const r of relays) {
    await stopProc(r.proc, "SIGTERM");
    rmSync(r.dataDir, { recursive: true, force: true });
  }
}
process.exitCode = exit;
