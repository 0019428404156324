// Cards across a link (contract §5.3, §5.6): the other relay decides under its rules whether
// the owner must be asked; the card shows in the calling conversation, on the caller's relay.
// Also the rules the other relay keeps for a remote conversation: its starter record (who may
// change what), the 4-working limit, no group for a remote start.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { TestRelay, McpSession } from "./helpers/relay-process.ts";
import { type PairedRelays, pairedRelays } from "./helpers/pairing.ts";
import { tool, toolResults, waitCard, decide, pendingCards } from "./helpers/control-helpers.ts";

let a: TestRelay;
let b: TestRelay;
let conv: string;
let agent: McpSession;
let target: string;

let relays: PairedRelays;
before(async () => {
  relays = await pairedRelays({ conv: "Planner", target: "Build", mention: "work with @bbox" });
  ({ a, b, conv, agent, target } = relays);
});

after(() => relays?.stop());

/** Sends the owner's message (a scripted turn) without waiting for it to end. */
async function start(text: string): Promise<string> {
  const r = await a.api("POST", `/api/sessions/${conv}/messages`, { text });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return r.json.message_id;
}

async function replyAfter(messageId: string): Promise<any> {
  return a.waitFor(async () => {
    const s = await a.session(conv);
    const i = s.messages.findIndex((m: any) => m.id === messageId);
    if (i < 0 || s.state === "running_turn") return undefined;
    return s.messages.slice(i + 1).find((m: any) => m.role === "agent");
  }, 60_000);
}

test("the first remote create_session asks on a card in the calling conversation; no group there; later ones do not ask", async () => {
  // Outside a turn there is nobody to ask.
  const none = await agent.call({ action: "create_session", relay: "bbox", text: "hello", wait_seconds: 0 });
  assert.equal(none.code, "REMOTE_RELAY_NO_ACTIVE_TURN", JSON.stringify(none));
  assert.equal((await b.api("GET", "/api/sessions")).json.sessions.length, 1, "nothing was created");

  const id = await start(
    tool({
      action: "create_session",
      relay: "bbox",
      title: "Remote child",
      text: "/reply child here",
      wait_seconds: 30,
    }),
  );
  const card = await waitCard(a, conv);
  assert.equal(card.relay, "bbox");
  assert.equal(card.action, "create_session");
  assert.match(card.text, /create_session on relay "bbox"/);
  assert.match(card.text, /the first session this conversation starts/);
  assert.equal((await pendingCards(b)).length, 0, "no card on the other relay");
  await decide(a, card.id, "allow");
  const [r] = toolResults(await replyAfter(id));
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.status, "done");
  assert.match(r.reply.text, /child here/);
  assert.equal(r.group, null, "a session started from a paired relay joins no group");
  const child = await b.session(r.session);
  assert.deepEqual(child.viaAgent, { session: child.viaAgent.session, title: "Planner (relay desk)" });

  // The grant holds for this conversation there: no second card.
  const again = await agent.call({
    action: "create_session",
    relay: "bbox",
    title: "Second",
    text: "/reply two",
    wait_seconds: 30,
  });
  assert.equal(again.ok, true, JSON.stringify(again));
  assert.equal(again.status, "done");
});

test("ask mode: every remote write asks here; Deny refuses it and nothing reaches the other relay", async () => {
  await a.api("PATCH", `/api/sessions/${conv}`, { mode: "ask" });
  try {
    const before = (await b.session(target)).messages.length;
    const id = await start(
      tool({ action: "send", relay: "bbox", session: target, text: "/reply denied?", wait_seconds: 0 }),
    );
    const card = await waitCard(a, conv);
    assert.match(card.text, /send on relay "bbox" · session "Build"/);
    assert.match(card.text, /the conversation is in ask mode/);
    // What it approves, whole, as the other relay would deliver it (contract §10.3).
    assert.match(card.detail, /^\[Remote prompt from an agent on relay "desk"/);
    assert.ok(card.detail.endsWith("]\n/reply denied?"), card.detail);
    await decide(a, card.id, "deny");
    const [r] = toolResults(await replyAfter(id));
    assert.equal(r.code, "REMOTE_RELAY_PERMISSION");
    assert.equal((await b.session(target)).messages.length, before, "nothing was sent");

    const id2 = await start(
      tool({ action: "send", relay: "bbox", session: target, text: "/reply allowed", wait_seconds: 30 }),
    );
    await decide(a, (await waitCard(a, conv)).id, "allow");
    const [r2] = toolResults(await replyAfter(id2));
    assert.equal(r2.status, "done", JSON.stringify(r2));
    // Reads ask nobody.
    assert.equal((await agent.call({ action: "read_session", relay: "bbox", session: target })).ok, true);
  } finally {
    await a.api("PATCH", `/api/sessions/${conv}`, { mode: "agent" });
  }
});

test("who may change what: a session the remote conversation started changes freely; another needs Allow once", async () => {
  const sessions = (await b.api("GET", "/api/sessions")).json.sessions;
  const mine = sessions.find((s: any) => s.title === "Second");
  const own = await agent.call({ action: "update_session", relay: "bbox", session: mine.id, effort: "low" });
  assert.equal(own.ok, true, JSON.stringify(own));
  assert.deepEqual(own.changed, ["effort"]);
  // Someone else's session: a card (here none can show: no turn).
  const other = await agent.call({ action: "update_session", relay: "bbox", session: target, effort: "low" });
  assert.equal(other.code, "REMOTE_RELAY_NO_ACTIVE_TURN");
  const id = await start(tool({ action: "update_session", relay: "bbox", session: target, effort: "low" }));
  const card = await waitCard(a, conv);
  assert.match(card.text, /a session this conversation did not start/);
  await decide(a, card.id, "allow");
  const [r] = toolResults(await replyAfter(id));
  assert.deepEqual(r.changed, ["effort"], JSON.stringify(r));
  // Allow covers later changes there.
  assert.equal(
    (await agent.call({ action: "update_session", relay: "bbox", session: target, effort: "high" })).ok,
    true,
  );
});

test("the 4-working limit counts the remote conversation's sessions on the other relay", async () => {
  const started: string[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await agent.call({
      action: "create_session",
      relay: "bbox",
      title: `Hang ${i}`,
      text: "/hang",
      wait_seconds: 0,
    });
    assert.equal(r.ok, true, JSON.stringify(r));
    started.push(r.session);
  }
  const fifth = await agent.call({
    action: "create_session",
    relay: "bbox",
    title: "Fifth",
    text: "/reply x",
    wait_seconds: 0,
  });
  assert.equal(fifth.code, "REMOTE_RELAY_LIMIT");
  // A conversation on the other relay itself is not held by this one's limit.
  for (const id of started) await agent.call({ action: "stop", relay: "bbox", session: id });
  await b.waitFor(async () =>
    (await b.api("GET", "/api/sessions")).json.sessions.every((s: any) => s.state !== "running_turn"),
  );
  assert.equal(
    (await agent.call({ action: "create_session", relay: "bbox", title: "Fifth", text: "/reply x", wait_seconds: 0 }))
      .ok,
    true,
  );
});
