// Core benchmarks (issue 2, "How it is shown"): a real relay process (`bin/oar start`, real
// clock, loopback only), the real MCP client, the real scripted agent. Prints p50/p99 of
//   1. list_relays over MCP, one connected client reused;
//   2. list_sessions with 1,000 sessions stored;
//   3. send → done to an idle scripted session (echo), its worker already started;
//   4. the idle relay's resident memory with 1,000 stored sessions and no workers.
// Rows marked "raw HTTP" time the same call as bare HTTP (no MCP client parsing): how much
// of a figure is the relay and the wire, and how much the client.
// Bounded in time: each phase has a budget, and a watchdog stops everything at 170 s.
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { TestRelay, McpSession, realSleep } from "../test/helpers/relay-process.ts";
import {
  childPids,
  cpuMs,
  loadLine,
  machineLine,
  rssMB,
  summarize,
  table,
  timeCalls,
  withinTarget,
  type Row,
} from "./lib/stats.ts";
import { rawCaller } from "./lib/mcp-raw.ts";

const SESSIONS = 1_000;
const LIST_RELAYS_CALLS = 2_000;
const LIST_SESSIONS_CALLS = 500;
const SENDS = 300;
/** contract §5.4: a conversation sends 30 prompts to other agents before a card asks the
 * owner, so the sends are spread over enough callers to stay under it. */
const SENDS_PER_CALLER = 30;
/** V8's memory reducer gives back the start-up heap about 30–60 s after the process goes idle. */
const SETTLE_MS = 60_000;
const DEADLINE_MS = 170_000;

const started = Date.now();
const log = (s: string) => console.log(`[core ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${s}`);

const relays: TestRelay[] = [];
let memDir = "";
async function cleanup(): Promise<void> {
  for (const r of relays.splice(0)) await r.stop().catch(() => {});
  if (memDir) rmSync(memDir, { recursive: true, force: true });
}
const watchdog = setTimeout(() => {
  console.error(`core bench: over ${DEADLINE_MS / 1000} s, stopping`);
  cleanup().finally(() => process.exit(1));
}, DEADLINE_MS);

/** Most sessions on a relay that orchestrates were started by agents, in groups: 90 groups
 * of a head and 9 sessions it started (half named, half named after their head), so every
 * list entry with a group or a starter costs what it costs in real use. The first 100
 * sessions stay plain; the benchmark's callers and target are among them. Written straight
 * into the SQLite file while the relay is down (the owner API cannot set a starter). */
function groupSessions(dataDir: string, ids: string[]): void {
  const db = new Database(join(dataDir, "oar.db"));
  const now = Date.now();
  db.transaction(() => {
    for (let g = 0; g < 90; g++) {
      const head = ids[100 + g * 10];
      const gid = `grp_bench${g}`;
      db.prepare(
        "INSERT INTO groups (id, name, head_session, created_by, created_at) VALUES (?, ?, ?, 'agent', ?)",
      ).run(gid, g % 2 ? `Release ${g}` : null, head, now);
      db.prepare("UPDATE sessions SET group_id = ? WHERE id = ?").run(gid, head);
      for (let m = 1; m < 10; m++)
        db.prepare("UPDATE sessions SET group_id = ?, via_session = ? WHERE id = ?").run(
          gid,
          head,
          ids[100 + g * 10 + m],
        );
    }
  })();
  db.close();
}

async function mcpFor(
  r: TestRelay,
  sessionId: string,
): Promise<{ mcp: McpSession; raw: (args: Record<string, unknown>) => Promise<string> }> {
  const entry = (await r.api("GET", `/api/sessions/${sessionId}/mcp`)).json;
  const mcp = await McpSession.connect(entry.url, entry.headers);
  return { mcp, raw: rawCaller(entry.url, entry.headers, mcp) };
}

/** CPU a process used per call since the last reading (10 ms ticks: read over many calls). */
function measureCpu(pid: number): (calls: number) => number {
  let last = cpuMs(pid);
  return (calls) => {
    const now = cpuMs(pid);
    const per = calls ? (now - last) / calls : 0;
    last = now;
    return per;
  };
}

function expectOk(res: any): any {
  if (!res?.ok) throw new Error(`relay_tool refused: ${JSON.stringify(res).slice(0, 400)}`);
  return res;
}

async function main(): Promise<{ rows: Row[]; notes: string[] }> {
  const r = await TestRelay.start({ name: "bench", testClock: false });
  relays.push(r);
  const notes: string[] = [];

  log(`creating ${SESSIONS} sessions through POST /api/sessions`);
  const ids: string[] = new Array(SESSIONS);
  let next = 0;
  const creator = async () => {
    for (let i = next++; i < SESSIONS; i = next++) ids[i] = await r.createSession({ title: `bench session ${i}` });
  };
  await Promise.all([creator(), creator(), creator(), creator()]);
  await r.kill();
  groupSessions(r.dataDir, ids);
  // list_sessions caller, the send target, then enough send callers: all plain sessions.
  const [listCaller, target] = ids;
  const sendCallers = ids.slice(2, 2 + Math.ceil((SENDS + 1) / SENDS_PER_CALLER));

  // 4. Memory on its own relay over a copy of the data, idle from its start to the end of
  // the run (the timed phases run on the other relay meanwhile).
  memDir = mkdtempSync(join(tmpdir(), "oar-bench-mem-"));
  cpSync(r.dataDir, memDir, { recursive: true });
  const mem = await TestRelay.start({ name: "bench", testClock: false, dataDir: memDir });
  relays.push(mem);
  const memStarted = Date.now();
  let rssPeak = 0;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMB(mem.proc.pid!))), 500);
  const stopSampling = () => clearInterval(sampler);
  rssPeak = rssMB(mem.proc.pid!);
  await r.boot();

  // 1. list_relays.
  const { mcp, raw } = await mcpFor(r, listCaller);
  log(`list_relays × ${LIST_RELAYS_CALLS}`);
  const relayCpu = measureCpu(r.proc.pid!);
  const listRelays = await timeCalls(
    LIST_RELAYS_CALLS,
    200,
    async () => expectOk(await mcp.call({ action: "list_relays" })),
    20_000,
  );
  const cpuListRelays = relayCpu(listRelays.length + 200);
  const listRelaysRaw = await timeCalls(LIST_RELAYS_CALLS / 2, 50, () => raw({ action: "list_relays" }), 8_000);

  // 2. list_sessions.
  log(`list_sessions × ${LIST_SESSIONS_CALLS} (${SESSIONS} stored)`);
  const first = expectOk(await mcp.call({ action: "list_sessions", relay: "this" }));
  if (first.sessions.length !== SESSIONS)
    throw new Error(`list_sessions shows ${first.sessions.length} sessions, expected ${SESSIONS}`);
  const bytes = (await raw({ action: "list_sessions", relay: "this" })).length;
  notes.push(
    `list_sessions answer: ${first.sessions.length} entries, ${first.sessions.filter((s: any) => s.group).length} in groups, ${(bytes / 1024).toFixed(0)} KB on the wire`,
  );
  relayCpu(0);
  const listSessions = await timeCalls(
    LIST_SESSIONS_CALLS,
    20,
    async () => expectOk(await mcp.call({ action: "list_sessions", relay: "this" })),
    30_000,
  );
  const cpuListSessions = relayCpu(listSessions.length + 20);
  const listSessionsRaw = await timeCalls(
    LIST_SESSIONS_CALLS / 2,
    10,
    () => raw({ action: "list_sessions", relay: "this" }),
    10_000,
  );
  await mcp.close();

  // 3. send → done.
  const callers: McpSession[] = [];
  for (const id of sendCallers) callers.push((await mcpFor(r, id)).mcp);
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
    if (res.status !== "done" || !String(res.reply?.text).endsWith(`\nping ${i}`))
      throw new Error(`send did not end done with its echo: ${JSON.stringify(res).slice(0, 400)}`);
  };
  log("warming the target's worker with one turn");
  await send(0);
  log(`send → done × ${SENDS}`);
  // The agent runs under the data folder's keeper (the relay's child); without one, under the relay.
  const keeperPid = Number(readFileSync(join(r.dataDir, "keeper.pid"), "utf8").trim()) || 0;
  const agentPid = childPids(keeperPid || r.proc.pid!)[0];
  const agentCpu = agentPid ? measureCpu(agentPid) : () => NaN;
  const keeperCpu = keeperPid ? measureCpu(keeperPid) : () => NaN;
  relayCpu(0);
  const sends = await timeCalls(SENDS, 0, (i) => send(i + 1), 35_000);
  notes.push(
    `relay CPU per call: list_relays ${cpuListRelays.toFixed(2)} ms, list_sessions ${cpuListSessions.toFixed(1)} ms, ` +
      `send → done ${relayCpu(sends.length).toFixed(2)} ms (+ ${keeperCpu(sends.length).toFixed(2)} ms in the keeper, ${agentCpu(sends.length).toFixed(2)} ms in the scripted agent's process)`,
  );
  for (const c of callers) await c.close();

  // 4, continued: read the memory relay once its start-up garbage has been given back: at
  // least SETTLE_MS idle, then until 10 readings in a row (5 s) agree within 1 MB.
  stopSampling();
  if (Date.now() - memStarted < SETTLE_MS)
    log(`waiting for the idle relay's GC to settle (${SETTLE_MS / 1000} s after its start)`);
  const settleBy = started + DEADLINE_MS - 10_000;
  let rss: number[] = [];
  for (;;) {
    rss = [...rss, rssMB(mem.proc.pid!)].slice(-10);
    const settled =
      rss.length === 10 && Math.max(...rss) - Math.min(...rss) <= 1 && Date.now() - memStarted >= SETTLE_MS;
    if (settled || Date.now() > settleBy) break;
    await realSleep(500);
  }
  const workers = childPids(mem.proc.pid!).length;
  notes.push(
    `idle relay RSS (${workers} worker processes): ${rssPeak.toFixed(1)} MB at most in its first ${(SETTLE_MS / 1000).toFixed(0)} s, ${rss[rss.length - 1].toFixed(1)} MB after ${((Date.now() - memStarted) / 1000).toFixed(0)} s idle`,
  );

  return {
    notes,
    rows: [
      { metric: "list_relays over MCP", unit: "ms", summary: summarize(listRelays), target: 2 },
      { metric: "  list_relays, raw HTTP", unit: "ms", summary: summarize(listRelaysRaw) },
      { metric: `list_sessions, ${SESSIONS} stored`, unit: "ms", summary: summarize(listSessions), target: 10 },
      { metric: "  list_sessions, raw HTTP", unit: "ms", summary: summarize(listSessionsRaw) },
      { metric: "send → done, idle scripted (echo)", unit: "ms", summary: summarize(sends), target: 15 },
      { metric: `idle relay RSS, ${SESSIONS} stored`, unit: "MB", summary: summarize(rss), target: 120 },
    ],
  };
}

// The MCP client's fetch adds an abort listener per request to one shared signal and drops
// it only when the request is garbage-collected, so Node warns past 1,500: count, don't print.
let listenerWarnings = 0;
process.removeAllListeners("warning");
process.on("warning", (w) => (w.name === "MaxListenersExceededWarning" ? listenerWarnings++ : console.warn(w)));

try {
  log(loadLine());
  const { rows, notes } = await main();
  console.log("");
  console.log(table(rows));
  for (const n of notes) console.log(n);
  if (listenerWarnings)
    console.log(
      `(the MCP client's fetch warned ${listenerWarnings}× about abort listeners piling up on its signal: a client-side quirk, not the relay)`,
    );
  console.log(machineLine());
  console.log(
    `${loadLine()} · date ${new Date().toISOString()} · took ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  process.exitCode = rows.every(withinTarget) ? 0 : 1;
} catch (err) {
  console.error("core bench failed:", err);
  for (const r of relays) console.error(`relay output tail:\n${r.output.slice(-1500)}`);
  process.exitCode = 2;
} finally {
  clearTimeout(watchdog);
  await cleanup();
}
