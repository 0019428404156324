// A group's budget follows its work across paired relays also when nobody waits (contract
// §10.4): a worker's turn on the other relay that ends after the calling agent stopped
// waiting reaches the group budget here through that relay's outbox (the event link), and a
// turn both the call's answer and the outbox carry counts once. The worker's turn is held on
// the other relay by its own budget first, so it surely ends while nobody here waits.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import Database from "better-sqlite3";
import { HandPeer, type PairedRelays, pairedRelays } from "./helpers/pairing.ts";

const TURN = (name: string) => `/usage 1000 500 0.40\n/reply ${name}`;

let relays: PairedRelays;
before(async () => {
  relays = await pairedRelays({ conv: "Planner", target: "Worker", mention: "work with @bbox" });
});
after(() => relays?.stop());

test("a worker's turn on a paired relay that ends while nobody waits counts for the group budget, once", {
  timeout: 180_000,
}, async () => {
  const { a, b, conv, agent, target } = relays;
  const group = (await a.api("POST", "/api/groups", { name: "Team" })).json;
  assert.equal((await a.api("POST", `/api/groups/${group.id}/sessions`, { session: conv })).status, 200);
  assert.equal(
    (
      await a.api("PATCH", "/api/settings", {
        budgets: [{ id: "team", scope: "group", target: group.id, period: "month", usd: 10 }],
      })
    ).status,
    200,
  );
  const team = async () => (await a.api("GET", "/api/usage")).json.budgets.find((x: any) => x.id === "team");

  // The worker's session there has spent its own budget (its owner's turn, nothing of ours).
  assert.equal((await b.say(target, TURN("owner's"))).text, "owner's");
  assert.equal(
    (
      await b.api("PATCH", "/api/settings", {
        budgets: [{ id: "worker", scope: "session", target, period: "day", usd: 0.4 }],
      })
    ).status,
    200,
  );
  const sent = await agent.call({ action: "send", relay: "bbox", session: target, text: TURN("w1"), wait_seconds: 30 });
  assert.equal(sent.status, "queued", JSON.stringify(sent));
  assert.equal(sent.heldForBudget?.budget, "worker");
  assert.equal((await team()).spentUsd, 0, "nothing ran yet");

  // That relay's owner lets it run once: it ends there while nobody here waits on it.
  const card = await b.waitFor(async () => {
    const c = (await b.api("GET", `/api/cards?session=${target}`)).json.cards.find((x: any) => x.kind === "budget");
    return c;
  });
  assert.equal((await b.api("POST", `/api/cards/${card.id}`, { optionId: "allow_once" })).status, 200);
  await a.waitFor(async () => (await team()).spentUsd === 0.4 || null);

  // The call's answer carries the same turn's usage: still counted once.
  const waited = await agent.call({
    action: "wait",
    relay: "bbox",
    session: target,
    message_id: sent.message_id,
    wait_seconds: 30,
  });
  assert.equal(waited.status, "done", JSON.stringify(waited));
  assert.match(waited.reply.text, /^w1/);
  assert.equal((await team()).spentUsd, 0.4);

  // A waited prompt: counted from the answer at once; its outbox copy (which comes before
  // the next turn's, the outbox keeps order) adds nothing.
  assert.equal((await b.api("PATCH", "/api/settings", { budgets: [] })).status, 200);
  const w2 = await agent.call({ action: "send", relay: "bbox", session: target, text: TURN("w2"), wait_seconds: 30 });
  assert.equal(w2.status, "done", JSON.stringify(w2));
  assert.equal((await team()).spentUsd, 0.8);
  const w3 = await agent.call({
    action: "send",
    relay: "bbox",
    session: target,
    text: "/usage 1000 500 0.25\n/reply w3",
    wait_seconds: 0,
  });
  assert.equal(w3.ok, true, JSON.stringify(w3));
  // Its $0.25 (the others cost $0.40 each) tells when it has come.
  await a.waitFor(async () => Math.round((await team()).spentUsd * 100) % 10 === 5 || null);
  assert.equal((await team()).spentUsd, 1.05);
  assert.equal((await team()).spentTokens, 4500);
  // The relay that ran them counts them for its own budgets (relay scope), the owner's too.
  assert.equal(
    (
      await b.api("PATCH", "/api/settings", {
        budgets: [{ id: "box", scope: "relay", period: "month", usd: 100 }],
      })
    ).status,
    200,
  );
  assert.equal((await b.api("GET", "/api/usage")).json.budgets[0].spentUsd, 1.45);

  // A paired relay cannot charge a conversation here that never talked to it: a spend row
  // naming one (written into that relay's outbox by hand, as a hostile relay would send it)
  // counts for nothing; the conversation's own next one still counts.
  const victim = await a.createSession({ title: "Victim" });
  assert.equal((await a.api("POST", `/api/groups/${group.id}/sessions`, { session: victim })).status, 200);
  const db = new Database(join(b.dataDir, "oar.db"));
  try {
    db.pragma("busy_timeout = 5000");
    db.prepare(`INSERT INTO remote_callers (id, pairing, session_id, title, model, loop_epoch, created_at, relay)
      SELECT 'rmt_forged000001', pairing, ?, 'Victim', model, 0, created_at, relay FROM remote_callers WHERE session_id = ?`).run(
      victim,
      conv,
    );
    db.prepare(`INSERT INTO peer_outbox (pairing, watcher, key, type, session_id, turn_id, line, urgent, subs_json, sub, at)
      SELECT pairing, id, 'spend:trn_forged', 'spend', NULL, 'trn_forged', '{"costUsd":5}', 0, '[]', NULL, 0
      FROM remote_callers WHERE id = 'rmt_forged000001'`).run();
  } finally {
    db.close();
  }
  const w4 = await agent.call({
    action: "send",
    relay: "bbox",
    session: target,
    text: "/usage 10 10 0.07\n/reply w4",
    wait_seconds: 0,
  });
  assert.equal(w4.ok, true, JSON.stringify(w4));
  // w4 comes after the forged row (the outbox keeps order): once it counted, that one was read.
  await a.waitFor(async () => Math.round((await team()).spentUsd * 100) % 10 === 2 || null);
  assert.equal((await team()).spentUsd, 1.12);
});

test("the outbox gives a turn's spend only to a relay that asks for it (spend=1): an older relay never takes it for an event", async () => {
  const { b } = relays;
  const peer = await HandPeer.pair(b, "older");
  const target = await b.createSession({ title: "For an older relay" });
  const sent = await peer.call("send", { session: target, text: TURN("o1"), wait_seconds: 30 });
  assert.equal(sent.result.status, "done", JSON.stringify(sent));
  assert.equal(sent.usage.costUsd, 0.4, "the answer carries it");
  assert.deepEqual((await peer.request("GET", "/events?after=0&wait=0")).json.events, []);
  const asked = (await peer.request("GET", "/events?after=0&wait=0&spend=1")).json.events;
  assert.equal(asked.length, 1, JSON.stringify(asked));
  const [e] = asked;
  assert.deepEqual(
    { type: e.type, watcher: e.watcher, sessionId: e.sessionId, turnId: e.turnId, usage: e.usage, line: e.line },
    { type: "spend", watcher: "ses_handpeer0001", sessionId: target, turnId: sent.turn, usage: sent.usage, line: "" },
  );
  // Confirmed (the cursor moved past it): gone.
  assert.deepEqual((await peer.request("GET", `/events?after=${e.seq}&wait=0&spend=1`)).json.events, []);
  await b.api("DELETE", "/api/relays/older");
});
