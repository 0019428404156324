// The keeper alone (the process that holds agents across relay restarts): how long the
// built keeper takes to listen, its resident memory idle and holding 10 agents, and — per
// round — a "relay" whose connection drops mid-turn and a new one that says hello, attaches
// and gets the turn's replay plus its answer (promptResult). Real keeper (dist/), real
// scripted agents, driven through the relay's own client (src/providers/keeper/client.ts).
import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { KeeperClient } from "../src/providers/keeper/client.ts";
import { KeeperDir, Rpc, agentSpec, keeperPidOf, until } from "../test/helpers/keeper-kit.ts";
import { loadLine, machineLine, summarize, table, type Row } from "./lib/stats.ts";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const ROUNDS = Number(process.env.OAR_BENCH_ROUNDS ?? 10);
const AGENTS = 10;
const CHUNKS = 20;

execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs"), "--if-stale"], { cwd: ROOT, stdio: "inherit" });
const KEEPER_JS = join(ROOT, "dist", "providers", "keeper", "keeper-main.js");
const rssMb = (pid: number) => Number(/VmRSS:\s*(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024;

/** Starts the built keeper the way the relay does from dist (plain node, worker flags). */
async function startBuilt(dir: string): Promise<{ pid: number; ms: number }> {
  const t0 = performance.now();
  const p = spawn(
    process.execPath,
    ["--max-semi-space-size=1", "--single-threaded", KEEPER_JS, dir, "--orphan-ms", "60000"],
    { detached: true, stdio: "ignore" },
  );
  // It writes its pid file once it listens (read every 2 ms: this is the figure).
  for (const end = Date.now() + 60_000; keeperPidOf(dir) !== p.pid; ) {
    if (Date.now() > end) throw new Error("the keeper did not listen within 60 s");
    await new Promise((r) => setTimeout(r, 2));
  }
  const ms = performance.now() - t0;
  p.unref();
  return { pid: p.pid!, ms };
}

const startMs: number[] = [];
const idleRss: number[] = [];
for (let i = 0; i < 5; i++) {
  const kd = new KeeperDir();
  const k = await startBuilt(kd.dir);
  startMs.push(k.ms);
  await new Promise((r) => setTimeout(r, 200));
  idleRss.push(rssMb(k.pid));
  await kd.close();
}

const kd = new KeeperDir();
const keeper = await startBuilt(kd.dir);
let client = (await KeeperClient.connect(kd.dir, { start: false }))!;
const rpcs: { rpc: Rpc; sid: string }[] = [];
for (let i = 0; i < AGENTS; i++) {
  const pipe = await client.spawn(`ses_${i}`, agentSpec());
  kd.track(pipe.pid);
  const rpc = new Rpc(pipe);
  rpcs.push({ rpc, sid: await rpc.openSession() });
}
const heldRss = rssMb(keeper.pid);

const welcome: number[] = [];
const replay: number[] = [];
const whole = Array.from({ length: CHUNKS }, (_, i) => `chunk ${i + 1}`).join("\n");
let complete = 0;
for (let round = 0; round < ROUNDS; round++) {
  const { rpc, sid } = rpcs[round % AGENTS]!;
  void rpc.prompt(sid, `/stream ${CHUNKS} 10`);
  // The turn runs to its end while the old connection is gone: the keeper keeps it all.
  await until("chunk 1", () => rpc.text().includes("chunk 1"));
  client.detach();
  await client.closed;
  await new Promise((r) => setTimeout(r, CHUNKS * 10 + 300));
  const t0 = performance.now();
  client = (await KeeperClient.connect(kd.dir, { start: false }))!;
  welcome.push(performance.now() - t0);
  const r2 = new Rpc(client.attach(`ses_${round % AGENTS}`));
  await until("promptResult", () => r2.results.length === 1);
  replay.push(performance.now() - t0);
  if (r2.text((s) => s.replay) === whole) complete++;
  // Later rounds speak to the workers through this connection.
  for (let i = 0; i < AGENTS; i++)
    if (i !== round % AGENTS)
      rpcs[i] = { rpc: new Rpc(client.attach(`ses_${i}`), { firstId: 1000 }), sid: rpcs[i]!.sid };
  rpcs[round % AGENTS] = { rpc: r2, sid };
}
client.detach();
await kd.close();

const rows: Row[] = [
  { metric: "built keeper: spawn → listening", unit: "ms", summary: summarize(startMs) },
  { metric: "keeper RSS, idle (no agent)", unit: "MB", summary: summarize(idleRss) },
  { metric: `keeper RSS holding ${AGENTS} scripted agents`, unit: "MB", summary: summarize([heldRss]) },
  { metric: "new relay connection: connect → welcome", unit: "ms", summary: summarize(welcome) },
  { metric: `connect → attach → ${CHUNKS}-chunk turn replayed + promptResult`, unit: "ms", summary: summarize(replay) },
];
console.log(machineLine());
console.log(loadLine());
console.log(table(rows));
console.log(`whole reply in the replay: ${complete} of ${ROUNDS}`);
if (complete !== ROUNDS) process.exitCode = 1;
