// Hostile or careless peers (issue 18): a peer answering without end, /peer/v1 calls no relay
// of this version makes (schedules, invented callers), and bodies over maxBodyMb on every
// peer route. The relay under attack is real; the peer is a node:http server on loopback or
// a real credential used by hand.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer, request, type Server } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { TestRelay, freePort } from "./helpers/relay-process.ts";
import { HandPeer, OAR_VERSION } from "./helpers/pairing.ts";
import { chunkedPost } from "./helpers/raw-http.ts";

let a: TestRelay;
let b: TestRelay;
before(async () => {
  [a, b] = await Promise.all([
    TestRelay.start({ name: "desk" }),
    TestRelay.start({ name: "bbox", settings: { maxBodyMb: 1 } }),
  ]);
});
after(() => Promise.all([a?.stop(), b?.stop()]));

/** A "relay" that answers every peer request with a body of up to 600 MB (what once took a
 * relay to 1.2 GB and crashed it), stopping when the caller hangs up. Pairing can be let
 * through so that the calls after it meet the same answers. */
class EndlessPeer {
  letPairThrough = false;
  readonly hits = new Map<string, number>();
  /** Bytes written to callers that hung up before the end. */
  cutAt: number[] = [];
  private server!: Server;
  port = 0;

  async start(): Promise<void> {
    this.port = await freePort();
    this.server = createServer((req, res) => {
      const path = (req.url ?? "").split("?")[0];
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      req.resume();
      res.setHeader("oar-version", OAR_VERSION);
      if (this.letPairThrough && path === "/peer/v1/pair")
        return void res.end(JSON.stringify({ ok: true, name: "fake", version: OAR_VERSION, credential: "oarc_fake" }));
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"ok":true,"events":[],"result":{"ok":true,"summary":"');
      const chunk = Buffer.alloc(1024 * 1024, "a");
      let sent = 0;
      res.on("close", () => {
        if (sent < 600 * chunk.length) this.cutAt.push(sent);
      });
      const pump = () => {
        while (!res.destroyed && sent < 600 * chunk.length) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        if (!res.destroyed) res.end('"}}');
      };
      pump();
    });
    await new Promise<void>((r) => this.server.listen(this.port, "127.0.0.1", () => r()));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  count(path: string): number {
    return this.hits.get(path) ?? 0;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** The relay process's resident memory and its peak so far (kB, /proc). */
function memory(relay: TestRelay): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${relay.proc.pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

test("a peer answering without end: pairing, the event link, calls and the Inbox get coded refusals; the relay stays up and small, and unpairs", async () => {
  const peer = new EndlessPeer();
  await peer.start();
  try {
    const start = memory(a);
    const refused = await a.api("POST", "/api/relays", { name: "fake", url: peer.url, token: "oarp_x" });
    // Reading the answer took a bounded amount of memory (it was not held whole).
    const bound = (m: { rss: number; peak: number }) => Math.max(m.peak, m.rss + 120_000);
    assert.ok(
      memory(a).peak < bound(start),
      `peak ${memory(a).peak} kB; at the start ${start.rss} kB (peak ${start.peak} kB)`,
    );
    assert.equal(refused.json.code, "REMOTE_RELAY_OFFLINE", JSON.stringify(refused.json));
    assert.match(refused.json.error, /larger than 16777216 bytes.*Nothing was paired\./);
    assert.equal((await a.api("GET", "/api/relays")).json.relays.length, 0, "nothing was paired");

    peer.letPairThrough = true;
    assert.equal((await a.api("POST", "/api/relays", { name: "fake", url: peer.url, token: "oarp_x" })).status, 201);
    peer.letPairThrough = false;
    // The event link polls at once, and again after each failure.
    await a.waitFor(() => peer.count("/peer/v1/events") >= 2, 30_000);

    const conv = await a.createSession({ title: "Caller" });
    const agent = await a.mcp(conv);
    await a.api("POST", `/api/sessions/${conv}/messages`, { text: "look at @fake" });
    const call = await agent.call({ action: "list_sessions", relay: "fake" });
    assert.equal(call.code, "REMOTE_RELAY_OFFLINE", JSON.stringify(call));
    assert.match(call.error, /more than 16777216 bytes; the answer was dropped\. Nothing was done\./);
    const inbox = await a.api("GET", "/api/inbox");
    assert.equal(inbox.status, 200);
    assert.ok(peer.count("/peer/v1/questions") >= 1);

    const mid = memory(a);
    assert.ok(mid.peak < bound(start), `peak ${mid.peak} kB; at the start ${start.rss} kB (peak ${start.peak} kB)`);

    // Every start polls again: the relay keeps running after it.
    const polled = peer.count("/peer/v1/events");
    await a.restart({ samePort: true });
    const restarted = memory(a);
    await a.waitFor(() => peer.count("/peer/v1/events") >= polled + 2, 30_000);
    assert.equal((await a.api("GET", "/api/health")).status, 200);

    const unpaired = await a.api("DELETE", "/api/relays/fake");
    assert.equal(unpaired.status, 200, JSON.stringify(unpaired.json));
    assert.equal((await a.api("GET", "/api/relays")).json.relays.length, 0);
    assert.ok(peer.count("/peer/v1/unpair") >= 1);

    // Each answer was cut off near the cap (16 MB, plus what was in flight), never read whole.
    assert.ok(peer.cutAt.length >= 6, `cut answers: ${peer.cutAt.length}`);
    for (const sent of peer.cutAt) assert.ok(sent < 64 * 1024 * 1024, `sent ${sent} bytes before the relay hung up`);
    const end = memory(a);
    assert.ok(
      end.peak < bound(restarted),
      `peak ${end.peak} kB after a start at ${restarted.rss} kB (peak ${restarted.peak} kB)`,
    );
    assert.doesNotMatch(a.output, /ERR_STRING_TOO_LONG|uncaught|\n\s+at .*peer-http/i);
  } finally {
    await peer.close();
  }
});

/** Stand-ins the relay holds (read from its SQLite file, as it is). */
function standIns(relay: TestRelay): { id: string; session_id: string }[] {
  const db = new Database(join(relay.dataDir, "oar.db"), { readonly: true });
  try {
    return db.prepare("SELECT * FROM remote_callers ORDER BY created_at").all() as { id: string; session_id: string }[];
  } finally {
    db.close();
  }
}

test("schedule through /peer/v1/call: refused with Accept prompts off, over the hop limit, and as on any relay otherwise; nothing is stored", async () => {
  const peer = await HandPeer.pair(b, "hand");
  const target = await b.createSession({ title: "Nightly" });
  const args = { text: "run the nightly review", at: "2030-01-01T00:00:00Z" };
  await b.api("PATCH", "/api/settings", { acceptPromptsFromOtherRelays: false });
  try {
    for (const a of [args, { ...args, session: target }]) {
      const off = await peer.call("schedule", a);
      assert.equal(off.result.code, "REMOTE_RELAY_PERMISSION", JSON.stringify(off));
      assert.match(off.result.error, /does not accept prompts from other relays' agents.*Nothing was scheduled\./);
    }
  } finally {
    await b.api("PATCH", "/api/settings", { acceptPromptsFromOtherRelays: true });
  }
  const hops = await peer.call("schedule", { ...args, session: target }, { origin: ["one", "two"] });
  assert.equal(hops.result.code, "REMOTE_RELAY_HOP_LIMIT", JSON.stringify(hops));
  // Schedules are kept by the relay the agent runs on: one arriving from a peer is refused
  // as the calling relay refuses it, never carried out here without its origin.
  for (const a of [args, { ...args, session: target }]) {
    const kept = await peer.call("schedule", a);
    assert.equal(kept.result.code, "REMOTE_RELAY_UNSUPPORTED", JSON.stringify(kept));
    assert.match(kept.result.error, /Schedules work only on this relay.*Nothing was scheduled\./);
  }
  assert.equal((await peer.call("list_schedules", {})).result.code, "REMOTE_RELAY_UNSUPPORTED");
  assert.deepEqual((await b.api("GET", "/api/schedules")).json.schedules, []);
  assert.deepEqual(standIns(b), [], "refused calls leave no stand-in");
  await b.api("DELETE", "/api/relays/hand");
});

test("stand-ins: a refused call makes none; one pairing holds at most 100, then REMOTE_RELAY_LIMIT; one that holds nothing makes room", async () => {
  const peer = await HandPeer.pair(b, "many");
  const target = await b.createSession({ title: "Watched" });
  try {
    // Refused calls: an unknown session, a card the calling relay must show first, an unknown action.
    assert.equal(
      (await peer.call("read_session", { session: "ses_nothere" }, { session: "ses_refused1" })).result.code,
      "REMOTE_RELAY_NOT_FOUND",
    );
    const card = await peer.call(
      "send",
      { session: target, text: "hi", wait_seconds: 0 },
      { session: "ses_refused2", mode: "ask", approved: false },
    );
    assert.ok(card.approvalNeeded, JSON.stringify(card));
    assert.equal(
      (await peer.call("no_such_action", {}, { session: "ses_refused3" })).result.code,
      "REMOTE_RELAY_UNKNOWN_ACTION",
    );
    assert.deepEqual(standIns(b), [], "a refused call leaves no stand-in");

    // A conversation that only read holds nothing here; 99 more that watch fill the pairing.
    assert.equal((await peer.call("list_sessions", {}, { session: "ses_reader" })).result.ok, true);
    const watch = (i: number) =>
      peer.call("subscribe", { sessions: [target] }, { session: `ses_watcher${String(i).padStart(3, "0")}` });
    for (let i = 1; i < 100; i++) assert.equal((await watch(i)).result.ok, true, `watcher ${i}`);
    assert.equal(standIns(b).length, 100);
    // The 100th watcher takes the reader's place; the 101st is refused and leaves no row.
    assert.equal((await watch(100)).result.ok, true);
    assert.ok(!standIns(b).some((r) => r.session_id === "ses_reader"), "the reader made room");
    const full = await watch(101);
    assert.equal(full.result.code, "REMOTE_RELAY_LIMIT", JSON.stringify(full));
    assert.match(full.result.error, /already has 100 conversations working here.*Nothing was subscribed\./);
    assert.equal(standIns(b).length, 100);
    assert.equal((await peer.call("list_sessions", {}, { session: "ses_reader" })).result.code, "REMOTE_RELAY_LIMIT");
    // Conversations already here go on; another pairing has its own 100.
    assert.equal((await peer.call("list_sessions", {}, { session: "ses_watcher001" })).result.ok, true);
    const other = await HandPeer.pair(b, "many");
    assert.equal(
      (await other.call("subscribe", { sessions: [target] }, { session: "ses_watcher101" })).result.ok,
      true,
    );
  } finally {
    await b.api("DELETE", "/api/relays/many");
  }
  assert.deepEqual(standIns(b), [], "unpaired: stand-ins that hold nothing go");
});

test("every /peer/v1 route holds to maxBodyMb: a body over it is a coded 413, chunked or declared", async () => {
  const peer = await HandPeer.pair(b, "bulky");
  const auth = { authorization: `Bearer ${peer.credential}`, "oar-version": OAR_VERSION };
  try {
    // bbox allows 1 MB: 3 MB sent in chunks, then the body ends.
    for (const path of ["/peer/v1/questions/ask_x", "/peer/v1/call", "/peer/v1/pair"]) {
      const r = await chunkedPost(b.url, path, auth, { mb: 3, end: true, prefix: '{"answer":"' });
      assert.equal(r.status, 413, `${path}: ${JSON.stringify(r.json)}`);
      assert.equal(r.json.code, "REMOTE_RELAY_INVALID_INPUT", path);
      assert.match(r.json.error, /larger than 1048576 bytes.*Nothing was done\./);
    }
    // Declared over the limit: refused on every route before anything happens, unpair too.
    for (const [method, path] of [
      ["POST", "/peer/v1/unpair"],
      ["GET", "/peer/v1/hello"],
      ["GET", "/peer/v1/events?after=0"],
      ["GET", "/peer/v1/questions"],
    ]) {
      const res = await new Promise<{ status: number; json: any }>((resolve, reject) => {
        const u = new URL(b.url);
        const req = request(
          {
            host: u.hostname,
            port: u.port,
            method,
            path,
            agent: false,
            headers: { ...auth, "content-type": "application/json", "content-length": String(2 * 1024 * 1024) },
          },
          (res) => {
            let text = "";
            res.on("data", (d) => (text += d));
            res.on("end", () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
          },
        );
        req.on("error", reject);
        req.write("{");
      });
      assert.equal(res.status, 413, `${method} ${path}`);
      assert.equal(res.json.code, "REMOTE_RELAY_INVALID_INPUT");
    }
    assert.equal((await peer.request("GET", "/hello")).status, 200, "still paired");
  } finally {
    await b.api("DELETE", "/api/relays/bulky");
  }
});

test("a second pairing under a name already paired sees, confirms, ends and moves nothing of the first one's", async () => {
  const honest = await HandPeer.pair(b, "twin");
  const target = await b.createSession({ title: "Shared name" });
  const sub = await honest.call(
    "subscribe",
    { sessions: [target], events: ["turn_end"] },
    { session: "ses_honest001" },
  );
  assert.equal(sub.result.ok, true, JSON.stringify(sub));
  await honest.call("ask", { session: target, question: "Ship it?" }, { session: "ses_honest001" });
  await b.say(target, "/reply one");
  const mine = await b.waitFor(async () => {
    const r = (await honest.request("GET", "/events?after=0")).json;
    return r.events.some((e: any) => e.type === "turn_end") ? r : undefined;
  });

  const twin = await HandPeer.pair(b, "twin");
  // Its own outbox is empty, and confirming "everything" there removes nothing of the first's.
  const seen = (
    await twin.request(
      "GET",
      `/events?after=${Number.MAX_SAFE_INTEGER}&subs=${sub.result.subscription.id}&ended=${sub.result.subscription.id}&moved=${encodeURIComponent("ses_honest001>ses_twin001")}`,
    )
  ).json;
  assert.deepEqual(seen.events, []);
  assert.deepEqual(seen.subs, { [sub.result.subscription.id]: "unpaired" }, "not its subscription");
  assert.deepEqual((await twin.request("GET", "/questions")).json.questions, []);
  const q = (await honest.request("GET", "/questions")).json.questions[0];
  assert.equal(
    (await twin.request("POST", `/questions/${q.id}`, { answer: "no" })).json.code,
    "REMOTE_RELAY_NOT_FOUND",
  );
  // The same conversation id through the second pairing is another caller: it holds nothing of the first's.
  const theirs = await twin.call("list_subscriptions", {}, { session: "ses_honest001" });
  assert.deepEqual(theirs.result.subscriptions, []);
  assert.equal(
    (await twin.call("unsubscribe", { subscription_id: sub.result.subscription.id }, { session: "ses_honest001" }))
      .result.ok,
    false,
  );

  const again = (await honest.request("GET", `/events?after=0&subs=${sub.result.subscription.id}`)).json;
  assert.deepEqual(
    again.events.map((e: any) => e.seq),
    mine.events.map((e: any) => e.seq),
    "the first pairing's events are still there",
  );
  assert.deepEqual(again.subs, { [sub.result.subscription.id]: null }, "its subscription is still active");
  assert.equal((await honest.request("GET", "/questions")).json.questions.length, 1);
  const kept = await honest.call("list_subscriptions", {}, { session: "ses_honest001" });
  assert.deepEqual(
    kept.result.subscriptions.map((s: any) => s.id),
    [sub.result.subscription.id],
  );
  // Unpairing the second (its own /unpair) leaves the first as it was.
  assert.equal((await twin.request("POST", "/unpair")).status, 200);
  assert.equal(
    (await honest.request("GET", `/events?after=0&subs=${sub.result.subscription.id}`)).json.subs[
      sub.result.subscription.id
    ],
    null,
  );
  await b.api("DELETE", "/api/relays/twin");
});
