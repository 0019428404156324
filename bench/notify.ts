// Notifications bench (issue 22, "How it is shown"): a first card raised → its Web Push
// request received by a push service, p99 ≤ 1 s. Phase A measures the notification domain
// in-process (src/notify on a real SQLite store, the real sender, web-push's encryption and
// VAPID signing) into the local push service of the tests, which checks the JWT and decrypts
// the payload before it counts a push as received. Then the same through a real relay
// process: an agent's send in ask mode raises the card (relay_tool from a running turn), and
// the time runs from the owner's message that starts the turn to the push held decrypted,
// so it is an upper bound of "card raised → push sent" (it includes the turn's start).
//
// The manual clock moves 31 s between cards, so each is a "first" (no gathering window);
// the time measured is real time, from raise() to the push service holding the payload.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { ManualClock } from "../src/core/clock.ts";
import { cardNeed } from "../src/notify/needs.ts";
import { buildNotify } from "../src/notify/notify.ts";
import { DEFAULT_NOTIFY } from "../src/core/notify-settings.ts";
import { openDb } from "../src/store/db.ts";
import { PushService } from "../test/helpers/push-service.ts";
import { runBench, summarize, type Row } from "./lib/stats.ts";
import { TestRelay } from "../test/helpers/relay-process.ts";
import { tool, waitCard } from "../test/helpers/control-helpers.ts";

const RELAY_CARDS = Number(process.env.NOTIFY_BENCH_RELAY_CARDS ?? 40);

const CARDS = Number(process.env.NOTIFY_BENCH_CARDS ?? 300);
const BUDGET_MS = 60_000;
const TARGET_MS = 1_000;

async function main(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "oar-bench-notify-"));
  const push = await PushService.start();
  const db = openDb(join(dir, "oar.db"));
  const clock = new ManualClock(Date.now());
  const notify = buildNotify({
    db,
    clock,
    settings: () => DEFAULT_NOTIFY,
    relayName: () => "bench",
    pageUrl: () => "https://bench.example:7420/",
    log: (line) => console.error(line),
  });
  notify.notifier.start();
  try {
    const browsers = [push.subscribe(), push.subscribe(), push.subscribe()];
    notify.subscriptions.add(browsers[0]);
    const detail = `Send to session "Review": ${"please look at the diff in src/notify and say what breaks ".repeat(20)}`;
    let received = 0;
    const raise = async (i: number, expect: number) => {
      const t0 = performance.now();
      notify.notifier.raise(
        cardNeed(
          {
            id: `card_${i}`,
            session: "ses_bench",
            text: `Allow send on relay "bench" · session "Review"? · Mode: ask`,
            detail,
          },
          "Review",
        ),
      );
      await push.received((received += expect));
      const ms = performance.now() - t0;
      await notify.notifier.idle();
      await clock.advance(31_000);
      return ms;
    };
    // The very first: loads web-push and makes the relay's VAPID keys.
    const cold = [await raise(0, 1)];
    const one: number[] = [];
    const end = performance.now() + BUDGET_MS / 2;
    for (let i = 1; i <= CARDS && performance.now() < end; i++) one.push(await raise(i, 1));
    notify.subscriptions.add(browsers[1]);
    notify.subscriptions.add(browsers[2]);
    const three: number[] = [];
    const end3 = performance.now() + BUDGET_MS / 2;
    for (let i = 0; i < CARDS / 3 && performance.now() < end3; i++) three.push(await raise(100_000 + i, 3));
    if (push.refused.length) throw new Error(`the push service refused ${push.refused.length}: ${push.refused[0].why}`);
    return [
      {
        metric: "first card → push received (cold: web-push loaded, VAPID keys made)",
        unit: "ms",
        summary: summarize(cold),
      },
      {
        metric: "first card → push received and decrypted, 1 browser",
        unit: "ms",
        summary: summarize(one),
        target: TARGET_MS,
      },
      {
        metric: "first card → all 3 browsers' pushes received",
        unit: "ms",
        summary: summarize(three),
        target: TARGET_MS,
      },
    ];
  } finally {
    notify.notifier.close();
    db.close();
    await push.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Through a real relay process: message → relay_tool send in ask mode → card → Web Push. */
async function throughRelay(): Promise<Row[]> {
  const push = await PushService.start();
  const relay = await TestRelay.start({ name: "bench" });
  try {
    await relay.api("POST", "/api/push/subscriptions", push.subscribe());
    const caller = await relay.createSession({ title: "Asker", mode: "ask" });
    const target = await relay.createSession({ title: "Review" });
    const times: number[] = [];
    const end = performance.now() + BUDGET_MS;
    for (let i = 0; i < RELAY_CARDS && performance.now() < end; i++) {
      const t0 = performance.now();
      const reply = relay.say(
        caller,
        tool({ action: "send", relay: "this", session: target, text: `please review change ${i}`, wait_seconds: 0 }),
        90_000,
      );
      await push.received(i + 1);
      times.push(performance.now() - t0);
      const card = await waitCard(relay, caller);
      await relay.api("POST", `/api/cards/${card.id}`, { decision: "deny" });
      await reply;
      await relay.advance(31_000);
    }
    if (push.refused.length) throw new Error(`the push service refused ${push.refused.length}: ${push.refused[0].why}`);
    // The first includes loading web-push and making the VAPID keys (kept from then on).
    return [
      {
        metric: "relay process: owner message → agent's card → push received (first, cold)",
        unit: "ms",
        summary: summarize(times.slice(0, 1)),
      },
      {
        metric: "relay process: owner message → agent's card → push received",
        unit: "ms",
        summary: summarize(times.slice(1)),
        target: TARGET_MS,
      },
    ];
  } finally {
    await relay.stop();
    await push.close();
  }
}

runBench(async () => [...(await main()), ...(await throughRelay())]);
