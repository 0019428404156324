// Idle RSS of a relay after work (issue 18, item 21), a real relay as `npm start` runs it
// (bin/oar start from the compiled bundle, the real clock). RSS is VmRSS from /proc/PID/status,
// the median of 10 readings over the last 5 s of each idle wait.
//   1. An empty data folder: idle RSS; then SESSIONS sessions created through POST
//      /api/sessions (scripted, no agent runs); idle again, RSS again. Target ≤ 90 MB.
//   2. The cached store of STORE sessions (bench/lib/scale-store.ts): idle RSS; then one search
//      through every session (GET /api/sessions?scope=all&query=parser: its total reads them
//      all) and 20 pages of 200; idle again, RSS again. Target ≤ 90 MB (issue 14's at 100,000).
// `node --import tsx bench/session-rss.ts` (about 6 min). SESSION_RSS_IDLE_MS (default 60000),
// SESSION_RSS_SESSIONS (default 1000), SESSION_RSS_STORE (default 100000; 0 skips part 2).
// SESSION_RSS_ROOTS: other checkouts to compare (comma-separated); their relays run at the same
// time as this one's and get the same requests interleaved, so every relay sees the same load.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, realSleep } from "../test/helpers/relay-process.ts";
import { cellTable, loadLine, machineLine, rssMB, summarize } from "./lib/stats.ts";
import { copyStore, scaleStore } from "./lib/scale-store.ts";
import { distFresh } from "../scripts/dist-fresh.mjs";
import { stopProc } from "./lib/proc.ts";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const ROOTS = [
  ROOT,
  ...(process.env.SESSION_RSS_ROOTS ?? "")
    .split(",")
    .filter(Boolean)
    .map((r) => resolve(r)),
];
const IDLE_MS = Number(process.env.SESSION_RSS_IDLE_MS ?? 60_000);
const SESSIONS = Number(process.env.SESSION_RSS_SESSIONS ?? 1000);
const STORE = Number(process.env.SESSION_RSS_STORE ?? 100_000);
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

function build(root: string): void {
  // As `npm start` does: build when the sources are newer than dist/, then bin/oar start.
  const built = spawnSync(process.execPath, ["scripts/build.mjs", "--if-stale"], { cwd: root, stdio: "inherit" });
  if (built.status !== 0 || !distFresh(root)) throw new Error(`${root}: no fresh build in dist/`);
}

async function boot(root: string, dataDir: string): Promise<Relay> {
  const port = await freePort();
  const proc = spawn(
    join(root, "bin", "oar"),
    ["start", "--port", String(port), "--data", dataDir, "--name", "bench"],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, OAR_REQUIRE_DIST: "1" } },
  );
  const relay: Relay = { root, proc, url: `http://127.0.0.1:${port}`, token: "", dataDir, output: "", trace: [] };
  proc.stdout!.on("data", (d) => (relay.output += d));
  proc.stderr!.on("data", (d) => (relay.output += d));
  for (const end = Date.now() + 60_000; !/listening on http/.test(relay.output); await realSleep(50)) {
    if (proc.exitCode !== null || Date.now() > end)
      throw new Error(`relay did not start: ${relay.output.slice(-1500)}`);
  }
  relay.token = readFileSync(join(dataDir, "owner-token"), "utf8").trim();
  const tick = setInterval(() => relay.proc.exitCode === null && relay.trace.push(rssMB(relay.proc.pid!)), 5000);
  relay.proc.once("exit", () => clearInterval(tick));
  return relay;
}

async function call(r: Relay, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(r.url + path, {
    method,
    headers: { authorization: `Bearer ${r.token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** Waits out the idle time, then the median of READINGS readings over its last 5 s. */
async function idleRss(relays: Relay[]): Promise<number[]> {
  await realSleep(Math.max(0, IDLE_MS - 5000));
  const readings = relays.map(() => [] as number[]);
  for (let i = 0; i < READINGS; i++) {
    for (const [j, r] of relays.entries()) readings[j].push(rssMB(r.proc.pid!));
    await realSleep(5000 / READINGS);
  }
  return readings.map((v) => summarize(v).p50);
}

const mb = (v: number) => `${v.toFixed(1)} MB`;
const who = (r: Relay) => (r.root === ROOT ? "this checkout" : r.root);

function printTraces(relays: Relay[]): void {
  for (const r of relays) {
    console.log(`${who(r)}: RSS every 5 s (MB): ${r.trace.map((v) => v.toFixed(0)).join(" ")}`);
    const trims = r.output.split("\n").filter((l) => l.startsWith("[memory]"));
    if (trims.length) console.log(trims.join("\n"));
  }
}

/** Boots a relay per checkout, each on its own data folder made by `prepare`. */
async function bootAll(relays: Relay[], prepare: (dir: string) => void): Promise<void> {
  for (const root of ROOTS) {
    const dir = mkdtempSync(join(tmpdir(), "oar-session-rss-"));
    try {
      prepare(dir);
      relays.push(await boot(root, dir));
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }
}

/** Idle RSS of every relay before and after `work` (which says what it did), and the table.
 * True when this checkout's relay ends within target. */
async function beforeAfter(
  relays: Relay[],
  label: string,
  work: () => Promise<string>,
  perSession = 0,
): Promise<boolean> {
  console.log(`\n${label}; ${loadLine()}; idle ${IDLE_MS / 1000} s`);
  const fresh = await idleRss(relays);
  const t0 = Date.now();
  const did = await work();
  const busy = relays.map((r) => rssMB(r.proc.pid!));
  console.log(`${did} in ${((Date.now() - t0) / 1000).toFixed(1)} s; ${loadLine()}; idle ${IDLE_MS / 1000} s`);
  const after = await idleRss(relays);
  console.log(`idle RSS read; ${loadLine()}\n`);
  const head = ["relay", "fresh, idle", `just after: ${did}`, `+ ${IDLE_MS / 1000} s idle`, "grown"];
  const rows = relays.map((r, i) => [who(r), mb(fresh[i]), mb(busy[i]), mb(after[i]), mb(after[i] - fresh[i])]);
  if (perSession) {
    head.push("per session");
    for (const [i, row] of rows.entries()) row.push(`${(((after[i] - fresh[i]) * 1024) / perSession).toFixed(1)} KB`);
  }
  head.push(`≤ ${TARGET_MB} MB`);
  for (const [i, row] of rows.entries()) row.push(after[i] <= TARGET_MB ? "yes" : "no");
  console.log(cellTable(head, rows));
  printTraces(relays);
  return after[0] <= TARGET_MB;
}

/** Part 1: SESSIONS created on an empty relay. */
async function created(relays: Relay[]): Promise<boolean> {
  await bootAll(relays, () => {});
  const label = `1. ${relays.length} relay(s) on an empty folder (dist/, real clock)`;
  return beforeAfter(
    relays,
    label,
    async () => {
      for (let i = 0; i < SESSIONS; i++) {
        const body = (r: Relay) => ({ provider: "scripted", title: `session ${i}`, cwd: r.dataDir });
        await Promise.all(relays.map((r) => call(r, "POST", "/api/sessions", body(r))));
      }
      return `${SESSIONS} sessions created`;
    },
    SESSIONS,
  );
}

/** Part 2: a search and pages through the big store. */
async function searched(relays: Relay[]): Promise<boolean> {
  const store = scaleStore(STORE, console.log);
  await bootAll(relays, (dir) => copyStore(store, dir));
  const label = `2. ${relays.length} relay(s) on the store of ${STORE.toLocaleString("en")} sessions`;
  return beforeAfter(relays, label, async () => {
    const found = await Promise.all(relays.map((r) => call(r, "GET", "/api/sessions?scope=all&query=parser")));
    const cursors = relays.map(() => "");
    const page = async (r: Relay, j: number) => {
      const after = cursors[j] ? `&cursor=${cursors[j]}` : "";
      cursors[j] = (await call(r, "GET", `/api/sessions?scope=all&limit=200${after}`)).nextCursor ?? "";
    };
    for (let i = 0; i < 20; i++) await Promise.all(relays.map(page));
    return `a search (${found[0].total} found), 20 pages of 200`;
  });
}

async function stopAll(relays: Relay[]): Promise<void> {
  for (const r of relays.splice(0)) {
    await stopProc(r.proc, "SIGTERM");
    rmSync(r.dataDir, { recursive: true, force: true });
  }
}

console.log(machineLine());
const relays: Relay[] = [];
let exit = 0;
try {
  for (const root of ROOTS) build(root);
  const parts = [await created(relays)];
  await stopAll(relays);
  if (STORE > 0) parts.push(await searched(relays));
  exit = parts.every(Boolean) ? 0 : 1;
} catch (err) {
  console.error(err);
  for (const r of relays) console.error(`relay output tail (${r.root}):\n${r.output.slice(-2000)}`);
  exit = 2;
} finally {
  await stopAll(relays);
}
process.exitCode = exit;
