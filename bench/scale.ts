// Scale bench (issue 14): the same calls on a relay holding 10, 1,000 and 100,000 sessions
// (with as many schedules, a tenth as many subscriptions and ten times as many messages:
// bench/lib/scale-store.ts), against a real relay process (bin/oar start: the compiled
// bundle when fresh), the real MCP client and the real scripted agent. Per size it prints
// p50/p99 of
//   - list_relays (the trivial MCP floor: a call that does next to nothing),
//   - list_sessions (the default page), and its answer's size,
//   - read_session (default last 10), relay_info,
//   - send → done to an idle scripted session (echo), worker warm,
//   - a schedule firing and an event reaching its watcher: due → written, on the manual clock
//     (the clock step that makes it due, until the message is in the store),
//   - start → serving (spawn until the "listening" line), idle RSS, one scripted worker's RSS.
// `node --import tsx bench/scale.ts [sizes…]` (default 10 1000 100000). Bounded: 25 min.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { McpSession, freePort, realSleep } from "../test/helpers/relay-process.ts";
import { childPids, cpuMs, loadLine, machineLine, rssMB, summarize, timeCalls, type Summary } from "./lib/stats.ts";
import { rawCaller } from "./lib/mcp-raw.ts";
import { copyStore, scaleStore, type ScaleStore } from "./lib/scale-store.ts";
import { distFresh } from "../scripts/dist-fresh.mjs";
import { stopProc } from "./lib/proc.ts";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const BIN = join(ROOT, "bin", "oar");
const SIZES = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
if (!SIZES.length) SIZES.push(10, 1_000, 100_000);
const CALLS = 500;
const SENDS = 100;
const SENDS_PER_CALLER = 30; // loop protection asks the owner after 30 (contract §5.4)
const FIRINGS = 30;
const EVENTS = 15; // under the wake-up cap of 20 an hour
const BOOTS = 5;
const IDLE_MS = Number(process.env.SCALE_IDLE_MS ?? 30_000);
const DEADLINE_MS = 25 * 60_000;

const started = Date.now();
const log = (s: string) => console.log(`[scale ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${s}`);
const cleanups: (() => void | Promise<void>)[] = [];
const watchdog = setTimeout(() => {
  console.error(`scale bench: over ${DEADLINE_MS / 60_000} min, stopping`);
  Promise.all(cleanups.map((c) => c())).finally(() => process.exit(1));
}, DEADLINE_MS);

interface Booted {
  proc: ChildProcess;
  url: string;
  ms: number;
  /** CPU the process used until then (user + system): what the start costs, less the machine's load. */
  cpu: number;
  output: string;
}

/** Spawns the relay and resolves when it prints its listening line: start → serving. */
async function boot(dataDir: string): Promise<Booted> {
  const port = await freePort();
  const t0 = performance.now();
  const proc = spawn(BIN, ["start", "--port", String(port), "--data", dataDir, "--name", "bench", "--test-clock"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  return await new Promise<Booted>((res, rej) => {
    const onData = (d: Buffer) => {
      output += d;
      if (/listening on http/.test(output)) {
        const ms = performance.now() - t0;
        res({
          proc,
          url: `http://127.0.0.1:${port}`,
          ms,
          cpu: cpuMs(proc.pid!),
          get output() {
            return output;
          },
        });
      }
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", (d) => (output += d));
    proc.once("exit", (code) => rej(new Error(`relay exited (${code}) before listening: ${output.slice(-1500)}`)));
  });
}

const stop = (b: Booted, signal?: NodeJS.Signals) => stopProc(b.proc, signal);

function api(url: string, token: string) {
  return async (method: string, path: string, body?: unknown): Promise<any> => {
    const r = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await r.json();
    if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json).slice(0, 300)}`);
    return json;
  };
}

/** The cached store's schedules were laid out from its build time: shift them so each lies
 * as far ahead of now as it did then (none falls due during a run). */
function shiftSchedules(dataDir: string): void {
  const db = new Database(join(dataDir, "oar.db"));
  const built = (db.prepare("SELECT MIN(created_at) AS t FROM schedules").get() as { t: number | null }).t;
  if (built != null) {
    const by = Date.now() - (built + 86_400_000);
    db.prepare("UPDATE schedules SET first_at = first_at + ?, next_fire_at = next_fire_at + ?").run(by, by);
  }
  db.close();
}

const expectOk = (res: any) => {
  if (!res?.ok) throw new Error(`relay_tool refused: ${JSON.stringify(res).slice(0, 400)}`);
  return res;
};

/** The relay being measured: its output is printed if the run fails. */
let current: Booted | undefined;

interface SizeResult {
  size: number;
  rows: Record<string, Summary>;
  listBytes: number;
  notes: string[];
}

async function measure(store: ScaleStore): Promise<SizeResult> {
  const n = store.sessions;
  const rows: Record<string, Summary> = {};
  const notes: string[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), `oar-scale-run-${n}-`));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  log(`${n.toLocaleString("en")} sessions: copying the store`);
  copyStore(store, dataDir);
  shiftSchedules(dataDir);
  const token = readFileSync(join(dataDir, "owner-token"), "utf8").trim();

  // Start → serving, BOOTS times (SIGKILL between: nothing to shut down cleanly).
  const boots: number[] = [];
  const cpus: number[] = [];
  let relay!: Booted;
  for (let i = 0; i < BOOTS; i++) {
    relay = await boot(dataDir);
    boots.push(relay.ms);
    cpus.push(relay.cpu);
    if (i < BOOTS - 1) await stop(relay);
  }
  cleanups.push(() => stop(relay, "SIGTERM"));
  current = relay;
  rows.start = summarize(boots);
  rows.startCpu = summarize(cpus);
  log(`  start → serving: ${boots.map((b) => b.toFixed(0)).join(", ")} ms; idle ${IDLE_MS / 1000} s for its RSS`);
  await realSleep(IDLE_MS);
  const idle: number[] = [];
  for (let i = 0; i < 5; i++) {
    idle.push(rssMB(relay.proc.pid!));
    await realSleep(200);
  }
  rows.rss = summarize(idle);

  const call = api(relay.url, token);
  await call("PATCH", "/api/settings", { agentSessions: true });
  const mcpOf = async (sessionId: string) => {
    const entry = await call("GET", `/api/sessions/${sessionId}/mcp`);
    const mcp = await McpSession.connect(entry.url, entry.headers);
    cleanups.push(() => mcp.close().catch(() => {}));
    return { mcp, raw: rawCaller(entry.url, entry.headers, mcp) };
  };
  const live = store.live;
  const { mcp, raw } = await mcpOf(live[2]);

  log(`  reads × ${CALLS} each`);
  // The floor and list_sessions call by call, alternating: on a shared machine whose load
  // drifts, two runs of 500 one after the other compared the load more than the calls.
  const floorCall = async () => expectOk(await mcp.call({ action: "list_relays" }));
  const listCall = async () => expectOk(await mcp.call({ action: "list_sessions", relay: "this" }));
  for (let i = 0; i < 100; i++) {
    await floorCall();
    await listCall();
  }
  const paired: [number[], number[]] = [[], []];
  await timeCalls(
    CALLS,
    0,
    async () => {
      for (const [k, fn] of [floorCall, listCall].entries()) {
        const t0 = performance.now();
        await fn();
        paired[k].push(performance.now() - t0);
      }
    },
    60_000,
  );
  rows.floor = summarize(paired[0]);
  const page = expectOk(await mcp.call({ action: "list_sessions", relay: "this" }));
  const listBytes = (await raw({ action: "list_sessions", relay: "this" })).length;
  notes.push(
    `list_sessions default page: ${page.sessions.length} of total ${page.total}, ${(listBytes / 1024).toFixed(1)} KB on the wire`,
  );
  rows.list = summarize(paired[1]);
  rows.read = summarize(
    await timeCalls(
      CALLS,
      50,
      async () => expectOk(await mcp.call({ action: "read_session", relay: "this", session: live[3] })),
      30_000,
    ),
  );
  rows.info = summarize(
    await timeCalls(CALLS, 50, async () => expectOk(await mcp.call({ action: "relay_info", relay: "this" })), 30_000),
  );

  // send → done to an idle scripted session, its worker started by a warm-up turn.
  const target = live[4];
  const callers: McpSession[] = [];
  for (let i = 0; i < Math.ceil((SENDS + 1) / SENDS_PER_CALLER); i++) callers.push((await mcpOf(live[5 + i])).mcp);
  const send = async (i: number) => {
    const res = expectOk(
      await callers[Math.floor(i / SENDS_PER_CALLER)].call({
        action: "send",
        relay: "this",
        session: target,
        text: `ping ${i}`,
        wait_seconds: 30,
      }),
    );
    if (res.status !== "done" || !String(res.reply?.text).endsWith(`ping ${i}`))
      throw new Error(`send did not end done with its echo: ${JSON.stringify(res).slice(0, 300)}`);
  };
  log(`  send → done × ${SENDS}`);
  await send(0);
  rows.send = summarize(await timeCalls(SENDS, 0, (i) => send(i + 1), 60_000));
  const workers = childPids(relay.proc.pid!);
  rows.worker = summarize(workers.map(rssMB));

  // A schedule firing: due → written (the clock step that makes it due, until its message is stored).
  log(`  schedule firings × ${FIRINGS}, events × ${EVENTS} (manual clock)`);
  const owner = live[5 + callers.length];
  const sched = (await mcpOf(owner)).mcp;
  const firings: number[] = [];
  // i = -1 is a warm-up: the first message into the session also starts its worker (a process
  // spawn, 20–100 ms of the relay's time under load, after the message is written), as the
  // send row warms its worker; that cold first step is reported in the notes.
  for (let i = -1; i < FIRINGS; i++) {
    const now = Date.parse((await call("POST", "/api/test/clock", { advanceMs: 0 })).now);
    expectOk(
      await sched.call({
        action: "schedule",
        relay: "this",
        at: new Date(now + 60_000).toISOString(),
        text: `tick ${i}`,
      }),
    );
    const t0 = performance.now();
    await call("POST", "/api/test/clock", { advanceMs: 60_000 });
    if (i < 0)
      notes.push(
        `schedule: the cold first firing (the session's worker started by it) ${(performance.now() - t0).toFixed(1)} ms`,
      );
    else firings.push(performance.now() - t0);
    const s = await call("GET", `/api/sessions/${owner}`);
    if (!s.messages.some((m: any) => m.role === "schedule" && m.text.includes(`tick ${i}`)))
      throw new Error(`schedule ${i} had not fired when the clock step answered`);
  }
  rows.schedule = summarize(firings);

  // An event reaching its watcher: the watched session's turn ends (an event in a
  // 30-second gathering window), then the step that closes the window, until the message is stored.
  const idleOf = async (id: string) => {
    for (let i = 0; i < 500; i++) {
      const s = await call("GET", `/api/sessions/${id}`);
      if (s.state === "idle") return s;
      await realSleep(20);
    }
    throw new Error(`session ${id} did not become idle`);
  };
  const events: number[] = [];
  for (let i = -1; i < EVENTS; i++) {
    // i = -1: a warm-up, as for the firings
    await call("POST", `/api/sessions/${store.watched}/messages`, { text: `work ${i}` });
    await idleOf(store.watched);
    const before = (await idleOf(store.watcher)).messages.length;
    const t0 = performance.now();
    await call("POST", "/api/test/clock", { advanceMs: 30_000 });
    if (i < 0)
      notes.push(
        `event: the cold first delivery (the watcher's worker started by it) ${(performance.now() - t0).toFixed(1)} ms`,
      );
    else events.push(performance.now() - t0);
    const after = await call("GET", `/api/sessions/${store.watcher}`);
    if (!after.messages.slice(before).some((m: any) => m.role === "event"))
      throw new Error(`event ${i} had not reached its watcher when the clock step answered`);
  }
  rows.event = summarize(events);
  await stop(relay, "SIGTERM");
  return { size: n, rows, listBytes, notes };
}

/** A fresh relay (empty data folder): start → serving and idle RSS only. */
async function measureFresh(): Promise<SizeResult> {
  const boots: number[] = [];
  const cpus: number[] = [];
  let relay!: Booted;
  for (let i = 0; i < BOOTS; i++) {
    const dir = mkdtempSync(join(tmpdir(), "oar-scale-fresh-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    relay = await boot(dir);
    boots.push(relay.ms);
    cpus.push(relay.cpu);
    if (i < BOOTS - 1) await stop(relay);
  }
  log(`fresh: start → serving ${boots.map((b) => b.toFixed(0)).join(", ")} ms; idle ${IDLE_MS / 1000} s for its RSS`);
  await realSleep(IDLE_MS);
  const idle: number[] = [];
  for (let i = 0; i < 5; i++) {
    idle.push(rssMB(relay.proc.pid!));
    await realSleep(200);
  }
  await stop(relay);
  return {
    size: 0,
    rows: { start: summarize(boots), startCpu: summarize(cpus), rss: summarize(idle) },
    listBytes: NaN,
    notes: [],
  };
}

/** Issue 14's targets, each with whether the run met it. */
function targets(fresh: SizeResult, results: SizeResult[]): [string, boolean][] {
  const big = results.find((r) => r.size >= 100_000);
  const out: [string, boolean][] = [];
  for (const r of results)
    out.push([
      `list_sessions p50 ≤ 1.2× floor at ${r.size.toLocaleString("en")}`,
      r.rows.list.p50 <= 1.2 * r.rows.floor.p50,
    ]);
  for (const r of results)
    out.push([`list_sessions answer ≤ 25 KB at ${r.size.toLocaleString("en")}`, r.listBytes <= 25 * 1024]);
  out.push(["start → serving ≤ 300 ms fresh (p50)", fresh.rows.start.p50 <= 300]);
  out.push(["idle RSS ≤ 75 MB fresh", fresh.rows.rss.p50 <= 75]);
  for (const r of results)
    out.push([`scripted worker ≤ 50 MB at ${r.size.toLocaleString("en")}`, r.rows.worker.max <= 50]);
  if (big) {
    out.push(["start → serving ≤ 400 ms at 100,000 (p50)", big.rows.start.p50 <= 400]);
    out.push(["idle RSS ≤ 90 MB at 100,000", big.rows.rss.p50 <= 90]);
    out.push(["schedule due → written ≤ 20 ms p99 at 100,000", big.rows.schedule.p99 <= 20]);
    out.push(["event due → written ≤ 20 ms p99 at 100,000", big.rows.event.p99 <= 20]);
  }
  return out;
}

const METRICS: [key: string, label: string, unit: string][] = [
  ["floor", "list_relays (trivial MCP floor)", "ms"],
  ["list", "list_sessions, default page", "ms"],
  ["read", "read_session (last 10)", "ms"],
  ["info", "relay_info", "ms"],
  ["send", "send → done (scripted echo)", "ms"],
  ["schedule", "schedule: due → written", "ms"],
  ["event", "event → watcher: due → written", "ms"],
  ["start", "start → serving", "ms"],
  ["startCpu", "  CPU used until serving", "ms"],
  ["rss", "idle relay RSS", "MB"],
  ["worker", "scripted worker RSS", "MB"],
];

function curve(results: SizeResult[]): string {
  const f = (v: number, unit: string) => (unit === "MB" ? v.toFixed(1) : v < 10 ? v.toFixed(2) : v.toFixed(1));
  const head = [
    "metric (p50 / p99)",
    ...results.map((r) => (r.size ? `${r.size.toLocaleString("en")} sessions` : "fresh (empty)")),
  ];
  const body = METRICS.map(([k, label, unit]) => [
    `${label}, ${unit}`,
    ...results.map((r) => (r.rows[k] ? `${f(r.rows[k].p50, unit)} / ${f(r.rows[k].p99, unit)}` : "—")),
  ]);
  body.push([
    "list_sessions ÷ floor (p50)",
    ...results.map((r) => (r.rows.list ? (r.rows.list.p50 / r.rows.floor.p50).toFixed(2) : "—")),
  ]);
  body.push(["list_sessions answer, KB", ...results.map((r) => (r.rows.list ? (r.listBytes / 1024).toFixed(1) : "—"))]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  return [line(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...body.map(line)].join("\n");
}

// The MCP client's fetch warns about abort listeners past 1,500 calls on one client: a client-side quirk.
process.removeAllListeners("warning");
process.on("warning", (w) => (w.name === "MaxListenersExceededWarning" ? undefined : console.warn(w)));

try {
  log(
    `${loadLine()} · bin/oar runs ${distFresh(ROOT) ? "dist/ (fresh build)" : "the sources through tsx (dist/ missing or stale: npm run build)"}`,
  );
  const fresh = await measureFresh();
  const results: SizeResult[] = [];
  for (const size of SIZES) {
    const store = scaleStore(size, log);
    results.push(await measure(store));
    log(`  ${loadLine()}`);
  }
  console.log("");
  console.log(curve([fresh, ...results]));
  const met = targets(fresh, results);
  console.log("");
  for (const [what, ok] of met) console.log(`${ok ? "met    " : "NOT met"}  ${what}`);
  process.exitCode = met.every(([, ok]) => ok) ? 0 : 1;
  for (const r of results) for (const note of r.notes) console.log(`${r.size.toLocaleString("en")}: ${note}`);
  console.log(machineLine());
  console.log(
    `${loadLine()} · date ${new Date().toISOString()} · took ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
} catch (err) {
  console.error("scale bench failed:", err);
  if (current)
    console.error(
      `relay output tail (exit ${current.proc.exitCode ?? "—"}, signal ${current.proc.signalCode ?? "—"}):\n${current.output.slice(-3000)}`,
    );
  process.exitCode = 2;
} finally {
  clearTimeout(watchdog);
  for (const c of cleanups.reverse()) await c();
}
