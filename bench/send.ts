// send → done on its own (issue 18 item 22): bench/core.ts's phase 3 without the 1,000
// sessions and the memory phase around it, so before/after runs fit back to back. A real
// relay (bin/oar start, the real clock, the compiled bundle when it is fresh), the real MCP
// client, the real scripted agent under the keeper. Prints p50/p99 of `send` with
// `wait_seconds` to an idle scripted session whose worker runs already (its reply checked
// every time), and per send what each process spends — the relay, the keeper (the hop
// between the relay and the agent) and the agent —: CPU time, and how often it went to
// sleep waiting (voluntary context switches: the wake-ups a send costs, which on a loaded
// machine each mean waiting for a core again).
//   node --import tsx bench/send.ts [sends]        (default 300; OAR_BENCH_ROUNDS=3 repeats)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TestRelay, McpSession } from "../test/helpers/relay-process.ts";
import { childPids, cpuMs, loadLine, runBench, summarize, timeCalls } from "./lib/stats.ts";

/** Times the process went to sleep waiting for something (Linux). */
const sleeps = (pid: number) =>
  Number(/voluntary_ctxt_switches:\s*(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);

type Per = { relay: number; keeper: number; agent: number };

const SENDS = Number(process.argv[2] ?? 300);
const ROUNDS = Number(process.env.OAR_BENCH_ROUNDS ?? 1);
/** contract §5.4: 30 prompts from one conversation to others before a card asks the owner. */
const PER_CALLER = 30;

async function round(): Promise<{ times: number[]; cpu: Per; wakes: Per }> {
  const r = await TestRelay.start({ name: "bench", testClock: false });
  try {
    const target = await r.createSession({ title: "target" });
    const callers: McpSession[] = [];
    for (let i = 0; i < Math.ceil((SENDS + 1) / PER_CALLER); i++) {
      const id = await r.createSession({ title: `caller ${i}` });
      const entry = (await r.api("GET", `/api/sessions/${id}/mcp`)).json;
      callers.push(await McpSession.connect(entry.url, entry.headers));
    }
    const send = async (i: number) => {
      const res = await callers[Math.floor(i / PER_CALLER)].call({
        action: "send",
        relay: "this",
        session: target,
        text: `ping ${i}`,
        wait_seconds: 30,
      });
      if (res?.status !== "done" || !String(res.reply?.text).endsWith(`\nping ${i}`))
        throw new Error(`send did not end done with its echo: ${JSON.stringify(res).slice(0, 400)}`);
    };
    await send(0); // starts the target's worker (and the keeper)
    // The availability probes the start runs (each installed agent CLI, tried once) are done
    // before anything is timed: they are heavy processes of their own.
    await r.waitFor(
      async () =>
        !(await r.api("GET", "/api/providers")).json.providers.some((p: { checking?: boolean }) => p.checking),
      120_000,
    );
    const keeper = Number(readFileSync(join(r.dataDir, "keeper.pid"), "utf8").trim());
    const agent = childPids(keeper)[0];
    const pids = { relay: r.proc.pid!, keeper, agent };
    const read = (f: (pid: number) => number): Per => ({
      relay: f(pids.relay),
      keeper: f(pids.keeper),
      agent: f(pids.agent),
    });
    const cpu0 = read(cpuMs);
    const wakes0 = read(sleeps);
    const times = await timeCalls(SENDS, 0, (i) => send(i + 1), 120_000);
    const per = (now: Per, then: Per): Per => ({
      relay: (now.relay - then.relay) / times.length,
      keeper: (now.keeper - then.keeper) / times.length,
      agent: (now.agent - then.agent) / times.length,
    });
    const cpu = per(read(cpuMs), cpu0);
    const wakes = per(read(sleeps), wakes0);
    for (const c of callers) await c.close();
    return { times, cpu, wakes };
  } finally {
    await r.stop();
  }
}

runBench(async () => {
  console.log(loadLine());
  const all: number[] = [];
  const notes: string[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const { times, cpu, wakes } = await round();
    all.push(...times);
    const s = summarize(times);
    const f = (p: Per, d: number) =>
      `relay ${p.relay.toFixed(d)}, keeper ${p.keeper.toFixed(d)}, agent ${p.agent.toFixed(d)}`;
    notes.push(
      `round ${i + 1}: p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms; per send: CPU ms ${f(cpu, 2)}; sleeps ${f(wakes, 1)} · ${loadLine()}`,
    );
    console.log(notes.at(-1));
  }
  return {
    rows: [{ metric: "send → done, idle scripted (echo)", unit: "ms", summary: summarize(all) }],
    notes,
    ok: true,
  };
});
