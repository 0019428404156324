// Two honest relays with the same name (two machines with the same host name, the default
// --name) paired with one relay (issue 18): a peer is its pairing, not its name, so each
// gets its own events. One that was off while the other took them still gets them all.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import { MIGRATIONS } from "../src/store/migrations.ts";
import { TestRelay } from "./helpers/relay-process.ts";
import { OAR_VERSION, eventTexts, pair } from "./helpers/pairing.ts";
import { agentTool } from "./helpers/core-helpers.ts";

let b: TestRelay;
let twins: TestRelay[] = [];
before(async () => {
  [b, ...twins] = await Promise.all([
    TestRelay.start({ name: "bbox" }),
    TestRelay.start({ name: "desk" }),
    TestRelay.start({ name: "desk" }),
  ]);
  for (const a of twins) await pair(a, b);
});
after(() => Promise.all([b, ...twins].map((r) => r?.stop())));

/** A conversation on `a` that subscribes (on the card the owner allows) to `target` on bbox. */
async function watcher(a: TestRelay, target: string): Promise<string> {
  const conv = await a.createSession({ title: "Watcher" });
  await a.say(conv, "watch bbox");
  const sub = await agentTool(a, conv, {
    action: "subscribe",
    relay: "bbox",
    sessions: [target],
    events: ["turn_end"],
  });
  assert.equal(sub.ok, true, JSON.stringify(sub));
  return conv;
}

/** The turn lines `a`'s watcher got so far (the gathering window moved past on its clock). */
async function turnsSeen(a: TestRelay, conv: string): Promise<string[]> {
  await a.advance(31_000);
  return (await eventTexts(a, conv))
    .join("\n")
    .split("\n")
    .flatMap((l) => /"(turn \d+)"/.exec(l)?.[1] ?? []);
}

test("two relays named alike each get their own events; one that was off for 6 turns gets all 6 when it is back", async () => {
  const target = await b.createSession({ title: "Build" });
  const [first, second] = twins;
  const convs = [await watcher(first, target), await watcher(second, target)];
  const incoming = (await b.api("GET", "/api/relays")).json.relays;
  assert.deepEqual(
    incoming.map((r: any) => [r.name, r.direction]),
    [
      ["desk", "incoming"],
      ["desk", "incoming"],
    ],
  );

  await b.say(target, "/reply turn 0");
  for (const [i, a] of twins.entries())
    await a.waitFor(async () => (await turnsSeen(a, convs[i])).includes("turn 0"), 60_000);

  // The first is off; the second takes (and confirms) every event meanwhile.
  await first.kill();
  const turns = [1, 2, 3, 4, 5, 6].map((n) => `turn ${n}`);
  for (const t of turns) await b.say(target, `/reply ${t}`);
  await second.waitFor(async () => (await turnsSeen(second, convs[1])).includes("turn 6"), 60_000);
  assert.deepEqual(await turnsSeen(second, convs[1]), ["turn 0", ...turns]);
  // The second's next poll confirms what it wrote (its cursor), as on any poll.
  await b.say(target, "/reply turn 7");
  await second.waitFor(async () => (await turnsSeen(second, convs[1])).includes("turn 7"), 60_000);

  await first.restart();
  const got = await first
    .waitFor(async () => {
      const seen = await turnsSeen(first, convs[0]);
      return seen.includes("turn 7") ? seen : undefined;
    }, 90_000)
    .catch(async () => turnsSeen(first, convs[0]));
  assert.deepEqual(got, ["turn 0", ...turns, "turn 7"], "the relay that was off got every event, once");
});

test("a store from before (stand-ins and outbox keyed by name) is upgraded: they go to the pairing of that name seen last", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "oar-test-"));
  const db = new Database(join(dataDir, "oar.db"));
  db.exec("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
  for (const m of MIGRATIONS.slice(
    0,
    MIGRATIONS.findIndex((m) => m.name === "014-peer-identity"),
  )) {
    db.exec(m.sql);
    db.prepare("INSERT INTO migrations (name, applied_at) VALUES (?, ?)").run(m.name, 1);
  }
  const hash = (s: string) => createHash("sha256").update(s).digest("hex");
  const now = Date.now();
  const client = db.prepare(
    "INSERT INTO peer_clients (id, name, credential_hash, label, version, last_seen_at, created_at) VALUES (?, 'desk', ?, NULL, ?, ?, ?)",
  );
  client.run("pcl_before000001", hash("oarc_before"), OAR_VERSION, now - 86_400_000, now - 90_000_000);
  client.run("pcl_inuse0000001", hash("oarc_inuse"), OAR_VERSION, now - 60_000, now - 80_000_000);
  db.prepare(
    "INSERT INTO remote_callers (id, client, session_id, title, model, loop_epoch, created_at) VALUES ('rmt_old000000001', 'desk', 'ses_far000000001', 'Far', 'm', 0, ?)",
  ).run(now);
  db.prepare(`INSERT INTO peer_outbox (client, watcher, key, type, session_id, turn_id, line, urgent, subs_json, sub, at)
    VALUES ('desk', 'rmt_old000000001', 'turn:t1', 'turn_end', NULL, NULL, '[relay event] kept across the upgrade', 0, '[]', NULL, ?)`).run(
    now,
  );
  db.close();

  const relay = await TestRelay.start({ dataDir, name: "bbox" });
  try {
    const events = async (credential: string) => {
      const res = await fetch(`${relay.url}/peer/v1/events?after=0`, {
        headers: { authorization: `Bearer ${credential}`, "oar-version": OAR_VERSION },
      });
      return ((await res.json()) as { events: { watcher: string; line: string }[] }).events;
    };
    assert.deepEqual(
      (await events("oarc_inuse")).map((e) => [e.watcher, e.line]),
      [["ses_far000000001", "[relay event] kept across the upgrade"]],
    );
    assert.deepEqual(await events("oarc_before"), []);
    const check = new Database(join(dataDir, "oar.db"), { readonly: true });
    assert.deepEqual(check.prepare("SELECT id, pairing, relay FROM remote_callers").all(), [
      { id: "rmt_old000000001", pairing: "pcl_inuse0000001", relay: "desk" },
    ]);
    check.close();
  } finally {
    await relay.stop();
  }
});
