// Event order across a link (issue 18, item 17; seed §9 "events arrive in the order they
// happened", contract §4.6): on real clocks, the watched relay is SIGKILLed between turns and
// inside them; the watcher on the other relay still receives every turn_end once, in the
// order the turns ran, replayed ones included.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import Database from "better-sqlite3";
import { realSleep } from "./helpers/relay-process.ts";
import { type PairedRelays, eventTexts, pairedRelays } from "./helpers/pairing.ts";
import { toolInTurn, SLOW } from "./helpers/watch.ts";

const KILLS = 4;

let relays: PairedRelays;
after(() => relays?.stop());

/** The turns of a session on that relay, in the order they were queued. */
function turnsOf(dataDir: string, sessionId: string): { status: string; reply: string | null }[] {
  const db = new Database(join(dataDir, "oar.db"), { readonly: true });
  try {
    return db
      .prepare("SELECT status, reply_text AS reply FROM turns WHERE session_id = ? ORDER BY rowid")
      .all(sessionId) as { status: string; reply: string | null }[];
  } finally {
    db.close();
  }
}

test("real clocks, the watched relay SIGKILLed between and inside turns: every turn_end reaches the watcher once, in turn order", async () => {
  relays = await pairedRelays({ conv: "Watcher", target: "Build", mention: "watch bbox", testClock: false });
  const { a, b, conv, target } = relays;
  const sub = await toolInTurn(a, conv, {
    action: "subscribe",
    relay: "bbox",
    sessions: [target],
    events: ["turn_end"],
  });
  assert.equal(sub.result.ok, true, JSON.stringify(sub.result));

  let n = 0;
  const queue = async (count: number) => {
    for (let j = 0; j < count; j++) {
      const i = n++;
      // Every third turn takes a while, so that a kill can land inside it.
      const text = i % 3 === 1 ? `/sleep 400\n/reply T-${i}` : `/reply T-${i}`;
      const r = await b.api("POST", `/api/sessions/${target}/messages`, { text });
      assert.equal(r.status, 201, JSON.stringify(r.json));
    }
  };
  const ended = () => turnsOf(b.dataDir, target).filter((t) => t.status !== "queued" && t.status !== "running").length;
  for (let k = 0; k < KILLS; k++) {
    const before = ended();
    await queue(3);
    if (k % 2) {
      // Inside a turn (the slow one most likely).
      await b.waitFor(() => ended() > before && turnsOf(b.dataDir, target).some((t) => t.status === "running"), SLOW);
    } else {
      // Between turns: right after one ended (its event may still be on its way to the outbox).
      await b.waitFor(() => ended() > before, SLOW);
      await realSleep(k * 30);
    }
    await b.restart({ samePort: true });
  }
  await queue(3);
  await b.waitFor(async () => (await b.session(target)).state === "idle", SLOW);

  const done = turnsOf(b.dataDir, target)
    .filter((t) => t.status === "done")
    .map((t) => t.reply!);
  assert.ok(done.length >= n - KILLS, `turns done there: ${done.join(", ")}`);
  const received = (texts: string[]) =>
    texts
      .join("\n")
      .split("\n")
      .flatMap((l) => /turn_end \(done\) "(T-\d+)"/.exec(l)?.[1] ?? []);
  // The watcher's gathering window runs on its real clock (30 s).
  const got = await a.waitFor(async () => {
    const r = received(await eventTexts(a, conv));
    return done.every((d) => r.includes(d)) ? r : undefined;
  }, 180_000);
  assert.deepEqual(got, done, "each turn_end once, in the order the turns ran");
});

test("the watcher's relay restarts on the manual clock (it starts again at the real time, before what it recorded): replayed lines still come before newer live ones", async () => {
  await relays?.stop();
  relays = await pairedRelays({ conv: "Watcher", target: "Build", mention: "watch bbox", proxy: true });
  const { a, b, conv, target } = relays;
  const proxy = relays.proxy!;
  const sub = await toolInTurn(a, conv, {
    action: "subscribe",
    relay: "bbox",
    sessions: [target],
    events: ["turn_end"],
  });
  assert.equal(sub.result.ok, true, JSON.stringify(sub.result));
  const recorded = (like: string) => {
    const db = new Database(join(a.dataDir, "oar.db"), { readonly: true });
    try {
      return !!db.prepare("SELECT 1 FROM watch_events WHERE watcher = ? AND line LIKE ?").get(conv, like);
    } finally {
      db.close();
    }
  };
  // The watcher's clock runs ahead of the real time, as a test that steps it leaves it.
  await a.advance(10 * 60_000);
  proxy.cut();
  await a.waitFor(async () => !(await a.api("GET", "/api/relays")).json.relays[0].online, SLOW);
  await b.say(target, "/reply first while down");
  proxy.restore();
  await a.waitFor(() => recorded("%link_restored%"), SLOW);
  // Killed before its gathering window closed: those lines wait in its store.
  await a.restart();
  await b.say(target, "/reply after the restart");
  await a.waitFor(() => recorded("%after the restart%"), SLOW);
  const texts = await a.waitFor(async () => {
    await a.advance(31_000);
    const t = (await eventTexts(a, conv)).join("\n");
    return /after the restart/.test(t) ? t : undefined;
  }, SLOW);
  const order = texts
    .split("\n")
    .filter((l) => l.startsWith("[relay event] "))
    .map((l) =>
      /link_lost/.test(l)
        ? "lost"
        : /link_restored/.test(l)
          ? "restored"
          : /replayed .*first while down/.test(l)
            ? "replayed"
            : /after the restart/.test(l)
              ? "live"
              : "other",
    );
  assert.deepEqual(order, ["lost", "replayed", "restored", "live"], texts);
});
