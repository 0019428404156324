// Paired relays (issue 11): what a link costs.
// 1. send → done through a paired relay against the same send on this relay (target: remote
//    overhead ≤ 2× local), both from one conversation over MCP, real clocks.
// 2. Event lag across healthy links: one conversation on relay A watches a session on each of
//    N paired relays (default 10); each relay ends turns; the lag is from the turn's end on
//    that relay (turns.ended_at) to the event row on A (watch_events.at), both read from the
//    relays' own SQLite files on this one machine's clock. Target p99 ≤ 1 s.
// PAIR_BENCH_RELAYS, PAIR_BENCH_SENDS and PAIR_BENCH_EVENTS scale it down on a busy machine.
import Database from "better-sqlite3";
import { join } from "node:path";
import { TestRelay } from "../test/helpers/relay-process.ts";
import { pair } from "../test/helpers/pairing.ts";

const RELAYS = Number(process.env.PAIR_BENCH_RELAYS ?? 10);
const SENDS = Number(process.env.PAIR_BENCH_SENDS ?? 20);
const EVENTS = Number(process.env.PAIR_BENCH_EVENTS ?? 5);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function main(): Promise<boolean> {
  const a = await TestRelay.start({ name: "desk", testClock: false });
  const others: TestRelay[] = [];
  try {
    for (let i = 0; i < RELAYS; i++) {
      const r = await TestRelay.start({ name: `peer${i}`, testClock: false });
      others.push(r);
      await pair(a, r);
    }
    const conv = await a.createSession({ title: "Watcher" });
    await a.say(conv, others.map((r) => r.opts.name).join(" "), 60_000);
    const agent = await a.mcp(conv);

    // 1. send → done, local and remote, alternating so load affects both alike.
    const local = await a.createSession({ title: "Local" });
    const remote = await others[0].createSession({ title: "Remote" });
    const tLocal: number[] = [];
    const tRemote: number[] = [];
    for (let i = 0; i < SENDS + 2; i++) {
      let t = performance.now();
      const l = await agent.call({
        action: "send",
        relay: "this",
        session: local,
        text: `/reply ${i}`,
        wait_seconds: 60,
      });
      const dl = performance.now() - t;
      t = performance.now();
      const r = await agent.call({
        action: "send",
        relay: "peer0",
        session: remote,
        text: `/reply ${i}`,
        wait_seconds: 60,
      });
      const dr = performance.now() - t;
      if (l.status !== "done" || r.status !== "done")
        throw new Error(`send failed: ${JSON.stringify(l)} ${JSON.stringify(r)}`);
      if (i >= 2) {
        // the first two warm the workers
        tLocal.push(dl);
        tRemote.push(dr);
      }
    }
    const ratio = pct(tRemote, 50) / pct(tLocal, 50);
    console.log(
      `send → done, local:  p50 ${pct(tLocal, 50).toFixed(0)} ms, p99 ${pct(tLocal, 99).toFixed(0)} ms (${SENDS} sends)`,
    );
    console.log(
      `send → done, remote: p50 ${pct(tRemote, 50).toFixed(0)} ms, p99 ${pct(tRemote, 99).toFixed(0)} ms; remote/local at p50 ${ratio.toFixed(2)}× (target ≤ 2×)`,
    );

    // 2. Event lag: subscribe once per relay (the first subscribe's card needs a turn: the
    // scripted agent subscribes, the bench allows the card).
    const targets: string[] = [];
    for (const r of others) targets.push(await r.createSession({ title: "Watched" }));
    const lines = others.map(
      (r, i) =>
        `/tool ${JSON.stringify({ action: "subscribe", relay: r.opts.name, sessions: [targets[i]], events: ["turn_end"] })}`,
    );
    const msg = await a.api("POST", `/api/sessions/${conv}/messages`, { text: lines.join("\n") });
    if (msg.status !== 201) throw new Error(JSON.stringify(msg.json));
    await a.waitFor(async () => {
      for (const c of (await a.api("GET", `/api/cards?session=${conv}`)).json.cards)
        await a.api("POST", `/api/cards/${c.id}`, { decision: "allow" });
      return (await a.session(conv)).state === "idle";
    }, 120_000);
    const subs = (await agent.call({ action: "list_subscriptions" })).subscriptions.filter((s: any) => s.active);
    if (subs.length !== RELAYS) throw new Error(`subscribed ${subs.length} of ${RELAYS}`);

    const dbA = new Database(join(a.dataDir, "oar.db"), { readonly: true });
    const lags: number[] = [];
    for (let round = 0; round < EVENTS; round++) {
      await Promise.all(others.map((r, i) => r.say(targets[i], `/reply round ${round}`, 60_000)));
      for (let i = 0; i < others.length; i++) {
        const dbR = new Database(join(others[i].dataDir, "oar.db"), { readonly: true });
        const turn = dbR
          .prepare("SELECT id, ended_at FROM turns WHERE session_id = ? ORDER BY queued_at DESC LIMIT 1")
          .get(targets[i]) as { id: string; ended_at: number };
        dbR.close();
        const key = `peer:peer${i}:turn:${turn.id}`;
        const row = await a.waitFor(
          () => dbA.prepare("SELECT at FROM watch_events WHERE key = ?").get(key) as { at: number } | undefined,
          30_000,
        );
        lags.push(row.at - turn.ended_at);
      }
    }
    dbA.close();
    console.log(
      `event lag across ${RELAYS} healthy links: p50 ${pct(lags, 50)} ms, p99 ${pct(lags, 99)} ms, max ${Math.max(...lags)} ms (${lags.length} events; target p99 ≤ 1000 ms)`,
    );
    return ratio <= 2 && pct(lags, 99) <= 1000;
  } finally {
    await Promise.all([a.stop(), ...others.map((r) => r.stop())]);
  }
}

main().then(
  (ok) => process.exit(ok ? 0 : 1),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
