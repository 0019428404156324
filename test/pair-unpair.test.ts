// Unpairing tells the other relay (issue 18, item 4): one that does not answer keeps its end
// only until it answers again; it is told then (also after a restart of this relay), drops its
// end and refuses the old credential. The DELETE answer says whether it was reached.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import Database from "better-sqlite3";
import { TestRelay } from "./helpers/relay-process.ts";
import { type LinkProxy, type PairedRelays, pair, pairedRelays } from "./helpers/pairing.ts";
import { toolInTurn, SLOW } from "./helpers/watch.ts";

let a: TestRelay;
let b: TestRelay;
let proxy: LinkProxy;
let conv: string;
let target: string;

let relays: PairedRelays;
before(async () => {
  relays = await pairedRelays({ conv: "Watcher", target: "Build", mention: "watch bbox", proxy: true });
  ({ a, b, proxy, conv, target } = relays as typeof relays & { proxy: LinkProxy });
});

after(() => relays?.stop());

/** One value read from a relay's SQLite file (read-only, beside the running relay). */
function read<T>(r: TestRelay, query: string, ...params: unknown[]): T {
  const db = new Database(join(r.dataDir, "oar.db"), { readonly: true });
  try {
    return db
      .prepare(query)
      .pluck()
      .get(...params) as T;
  } finally {
    db.close();
  }
}

const hello = (r: TestRelay, credential: string) =>
  fetch(`${r.url}/peer/v1/hello`, { headers: { authorization: `Bearer ${credential}` } }).then((x) => x.status);

test("unpaired while the other relay does not answer: reached false; told when it answers again (after a restart here too), it drops its end", async () => {
  const sub = await toolInTurn(a, conv, {
    action: "subscribe",
    relay: "bbox",
    sessions: [target],
    events: ["turn_end"],
  });
  assert.equal(sub.result.ok, true, JSON.stringify(sub.result));
  const credential = read<string>(a, "SELECT credential FROM relays WHERE name = 'bbox'");
  assert.equal(await hello(b, credential), 200);

  proxy.cut();
  const r = await a.api("DELETE", "/api/relays/bbox");
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.deepEqual(r.json, { ok: true, removed: ["outgoing"], reached: false });
  assert.equal((await a.api("GET", "/api/relays")).json.relays.length, 0, "this side's end is gone at once");
  assert.ok(!JSON.stringify(r.json).includes("oarc_"));

  // The other relay still holds its end meanwhile: its outbox fills for this relay's watcher.
  await b.say(target, "/reply while unpairing");
  assert.ok(read<number>(b, "SELECT COUNT(*) FROM peer_outbox") > 0);
  assert.equal((await b.api("GET", "/api/relays")).json.relays.length, 1);

  // The tell survives a restart here; the relay clock brings the next try.
  await a.restart();
  proxy.restore();
  await a.waitFor(async () => {
    await a.advance(60_000);
    return (await b.api("GET", "/api/relays")).json.relays.length === 0;
  }, SLOW);
  assert.equal(await hello(b, credential), 401, "the old credential is refused there");
  assert.equal(read<number>(b, "SELECT COUNT(*) FROM peer_outbox"), 0, "its outbox rows are gone");
  assert.equal(
    read<string>(b, "SELECT end_reason FROM subscriptions WHERE id = ?", sub.result.subscription.id),
    "unpaired",
  );
  await a.waitFor(() => read<number>(a, "SELECT COUNT(*) FROM peer_unpair_tells") === 0, SLOW);
});

test("unpaired while the other relay answers: reached true, and it drops its end at once", async () => {
  const c = await TestRelay.start({ name: "cbox" });
  try {
    await pair(a, c);
    const r = await a.api("DELETE", "/api/relays/cbox");
    assert.deepEqual(r.json, { ok: true, removed: ["outgoing"], reached: true });
    assert.equal((await c.api("GET", "/api/relays")).json.relays.length, 0);
    assert.equal(read<number>(a, "SELECT COUNT(*) FROM peer_unpair_tells"), 0);
    // Removing the incoming end tells nobody: the relay that paired learns it from its next call.
    await pair(c, a);
    const incoming = await a.api("DELETE", "/api/relays/cbox");
    assert.deepEqual(incoming.json, { ok: true, removed: ["incoming"] });
  } finally {
    await c.stop();
  }
});
