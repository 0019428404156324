// The event link between paired relays (issue 18, item 18), two real relay processes on
// loopback with real clocks: a conversation on A ("desk") watches a session on B ("bbox").
//   - Healthy link: lag from a turn's end on B (turns.ended_at) to its event recorded on A
//     (watch_events.at), both read from the relays' SQLite files on this machine's clock.
//     Target p99 ≤ 250 ms. (Delivery into the conversation then follows the 30-second
//     gathering window: that is the watcher's policy, not the link.)
//   - B comes back: B is SIGKILLed, A records link_lost, B starts again on its port; "back" is
//     the first moment B's health route answers (polled every 10 ms). Measured: back →
//     link_restored recorded on A, and back → the first live event recorded on A (a turn
//     prompted on B the moment it is back; it must not be marked replayed). Target p99 ≤ 2 s.
//   - The link cut (a TCP proxy between them drops it) while B works on: the turn ends B kept
//     must come marked replayed, the first one after the link is back live.
// LINK_BENCH_EVENTS (40), LINK_BENCH_RESTARTS (20) and LINK_BENCH_CUTS (5) scale it.
import Database from "better-sqlite3";
import { join } from "node:path";
import { TestRelay, realSleep } from "../test/helpers/relay-process.ts";
import { LinkProxy, pair } from "../test/helpers/pairing.ts";
import { toolInTurn } from "../test/helpers/watch.ts";
import { runBench, summarize, type Findings, type Row } from "./lib/stats.ts";

const EVENTS = Number(process.env.LINK_BENCH_EVENTS ?? 40);
const RESTARTS = Number(process.env.LINK_BENCH_RESTARTS ?? 20);
const CUTS = Number(process.env.LINK_BENCH_CUTS ?? 5);
const started = Date.now();
const log = (s: string) => console.log(`[link ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${s}`);

async function main(): Promise<Findings> {
  const a = await TestRelay.start({ name: "desk", testClock: false });
  const b = await TestRelay.start({ name: "bbox", testClock: false });
  const proxy = await LinkProxy.start(() => b.url);
  const dbA = new Database(join(a.dataDir, "oar.db"), { readonly: true });
  try {
    await pair(a, b, { url: proxy.url });
    const conv = await a.createSession({ title: "Watcher" });
    await a.say(conv, "watch bbox", 60_000);
    const target = await b.createSession({ title: "Watched" });
    const sub = await toolInTurn(a, conv, {
      action: "subscribe",
      relay: "bbox",
      sessions: [target],
      events: ["turn_end"],
    });
    if (!sub.result.ok) throw new Error(JSON.stringify(sub.result));

    /** The turn a message started on B, once it ended there. */
    const endedTurn = (messageId: string) =>
      b.waitFor(() => {
        const dbB = new Database(join(b.dataDir, "oar.db"), { readonly: true });
        try {
          return dbB
            .prepare("SELECT id, ended_at FROM turns WHERE message_id = ? AND ended_at IS NOT NULL")
            .get(messageId) as { id: string; ended_at: number } | undefined;
        } finally {
          dbB.close();
        }
      }, 60_000);
    const recorded = (turnId: string) =>
      a.waitFor(
        () =>
          dbA
            .prepare("SELECT at, line FROM watch_events WHERE watcher = ? AND key = ?")
            .get(conv, `peer:bbox:turn:${turnId}`) as { at: number; line: string } | undefined,
        60_000,
      );
    const prompt = async (text: string) => {
      const r = await b.api("POST", `/api/sessions/${target}/messages`, { text });
      if (r.status !== 201) throw new Error(JSON.stringify(r.json));
      return r.json.message_id as string;
    };

    log(`healthy link: ${EVENTS} turn ends on B`);
    const lags: number[] = [];
    for (let i = 0; i < EVENTS + 2; i++) {
      const turn = await endedTurn(await prompt(`/reply lag ${i}`));
      const row = await recorded(turn.id);
      if (i >= 2) lags.push(row.at - turn.ended_at); // the first two warm the worker
    }

    log(`B comes back: ${RESTARTS} restarts`);
    const restored: number[] = [];
    const firstLive: number[] = [];
    const liveLag: number[] = [];
    let markedReplayed = 0;
    const port = Number(new URL(b.url).port);
    for (let k = 0; k < RESTARTS; k++) {
      const before =
        (dbA.prepare("SELECT MAX(seq) AS s FROM watch_events WHERE watcher = ?").get(conv) as { s: number | null }).s ??
        0;
      await b.kill();
      await a.waitFor(
        () =>
          (dbA.prepare("SELECT link_lost_at FROM relays WHERE name = 'bbox'").get() as { link_lost_at: number | null })
            .link_lost_at != null,
        60_000,
      );
      await realSleep(200 + (k % 5) * 300);
      let back = 0;
      const booted = b.boot(port);
      while (!back) {
        const ok = await fetch(`${b.url}/api/health`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) back = Date.now();
        else await realSleep(10);
      }
      // The first live event: prompted the moment B answers (its owner API takes it at once).
      const live = prompt(`/reply live ${k}`).catch(async () => {
        await booted;
        return prompt(`/reply live ${k}`);
      });
      await booted;
      const turn = await endedTurn(await live);
      const row = await recorded(turn.id);
      const back2 = await a.waitFor(
        () =>
          dbA
            .prepare("SELECT at FROM watch_events WHERE watcher = ? AND type = 'link_restored' AND seq > ?")
            .get(conv, before) as { at: number } | undefined,
        60_000,
      );
      restored.push(back2.at - back);
      firstLive.push(row.at - back);
      liveLag.push(row.at - turn.ended_at);
      if (/ · replayed · /.test(row.line)) markedReplayed++;
    }
    log(`the link cut: ${CUTS} times, 2 turn ends kept each time`);
    let keptLive = 0;
    let afterReplayed = 0;
    const lostNow = () =>
      (dbA.prepare("SELECT link_lost_at FROM relays WHERE name = 'bbox'").get() as { link_lost_at: number | null })
        .link_lost_at != null;
    for (let k = 0; k < CUTS; k++) {
      proxy.cut();
      await a.waitFor(lostNow, 60_000);
      const kept = [
        await endedTurn(await prompt(`/reply kept ${k}a`)),
        await endedTurn(await prompt(`/reply kept ${k}b`)),
      ];
      // The link stays down a moment longer (an event of the last retry interval before the
      // return, 250 ms, may count as live: when exactly the link came back is not known closer).
      await realSleep(1_000);
      proxy.restore();
      for (const t of kept) if (!/ · replayed · /.test((await recorded(t.id)).line)) keptLive++;
      await a.waitFor(() => !lostNow(), 60_000);
      const after = await endedTurn(await prompt(`/reply after ${k}`));
      if (/ · replayed · /.test((await recorded(after.id)).line)) afterReplayed++;
    }
    const rows: Row[] = [
      { metric: "healthy link: turn end on B → recorded on A", unit: "ms", summary: summarize(lags), target: 250 },
      { metric: "B back → link_restored recorded on A", unit: "ms", summary: summarize(restored), target: 2000 },
      { metric: "B back → first live event recorded on A", unit: "ms", summary: summarize(firstLive), target: 2000 },
      { metric: "  of which: that turn's end on B → recorded on A", unit: "ms", summary: summarize(liveLag) },
    ];
    const notes = [
      `live events after a return marked replayed: ${markedReplayed} of ${RESTARTS}`,
      `link cut ${CUTS} times: kept turn ends not marked replayed ${keptLive} of ${2 * CUTS}; the next one marked replayed ${afterReplayed} of ${CUTS}`,
    ];
    return { rows, notes, ok: !markedReplayed && !keptLive && !afterReplayed };
  } finally {
    dbA.close();
    await proxy.close();
    await Promise.all([a.stop(), b.stop()]);
  }
}

runBench(main);
