// Approval cards (contract §5.3): raised in the calling conversation from inside a real
// scripted turn, shown in the owner API and on the SSE stream, decided by the owner; the
// call waits on the relay clock up to Longest wait per tool call.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { decide, openStream, pendingCards, tool, toolResults, waitCard } from "./helpers/control-helpers.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay.stop());

const MINUTE = 60_000;
const create = (title: string, extra: Record<string, unknown> = {}) =>
  tool({ action: "create_session", relay: "this", title, text: "hello", wait_seconds: 0, ...extra });

async function sessionCount(): Promise<number> {
  return (await relay.api("GET", "/api/sessions?scope=all")).json.sessions.length;
}

test("the first create_session of a conversation waits for Allow; the card names action, relay and details; later ones ask nobody", async () => {
  const a = await relay.createSession({ title: "Starter" });
  const stream = await openStream(relay);
  const reply = relay.say(a, create("Child one", { model: "scripted-2" }), 60_000);
  const card = await waitCard(relay, a);
  assert.equal(card.session, a);
  assert.equal(card.kind, "approval");
  assert.equal(card.action, "create_session");
  assert.equal(card.relay, "desk");
  assert.equal(card.status, "pending");
  assert.ok(card.details.includes("Title: Child one"), JSON.stringify(card.details));
  assert.ok(card.details.includes("Model: scripted-2"), JSON.stringify(card.details));
  assert.match(card.reasons.join(" "), /first session/);
  assert.match(card.text, /create_session on relay "desk"/);
  // Nothing is created while the card waits.
  assert.equal(
    (await relay.api("GET", "/api/sessions?scope=all")).json.sessions.filter((s: any) => s.title === "Child one")
      .length,
    0,
  );
  // The stream shows the card as it is raised, with what the UI needs to draw it.
  const created = await stream.next((e) => e.type === "card.created" && e.cardId === card.id);
  assert.equal(created.sessionId, a);
  assert.equal(created.card.action, "create_session");
  // It is also in the conversation's detail.
  assert.deepEqual(
    (await relay.session(a)).cards.map((c: any) => [c.id, c.status]),
    [[card.id, "pending"]],
  );

  assert.equal((await decide(relay, card.id, "allow")).json.status, "allowed");
  const decided = await stream.next((e) => e.type === "card.decided" && e.cardId === card.id);
  assert.equal(decided.status, "allowed");
  const [r] = toolResults(await reply);
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.title, "Child one");
  await stream.close();

  // The grant holds for the conversation: the second create_session shows no card.
  const second = toolResults(await relay.say(a, create("Child two"), 60_000));
  assert.equal(second[0].ok, true, JSON.stringify(second[0]));
  assert.deepEqual(await pendingCards(relay, a), []);
  assert.deepEqual(
    (await relay.session(a)).cards.map((c: any) => c.status),
    ["allowed"],
  );
  // A decided card cannot be decided again.
  const again = await decide(relay, card.id, "deny");
  assert.equal(again.status, 404);
  assert.equal(again.json.code, "REMOTE_RELAY_NOT_FOUND");
  // An option for it (as for a permission card) gets the same truth, not "not a permission card".
  const option = await relay.api("POST", `/api/cards/${card.id}`, { optionId: "allow" });
  assert.equal(option.json.code, "REMOTE_RELAY_NOT_FOUND");
  assert.match(option.json.error, /is no longer pending \(allowed\)/);
});

test("Deny refuses the call with REMOTE_RELAY_PERMISSION, creates nothing, and the next first create_session asks again", async () => {
  const a = await relay.createSession({ title: "Denied starter" });
  const before = await sessionCount();
  const reply = relay.say(a, create("Never"), 60_000);
  const card = await waitCard(relay, a);
  assert.equal((await decide(relay, card.id, "deny")).json.status, "denied");
  const [r] = toolResults(await reply);
  assert.equal(r.ok, false);
  assert.equal(r.code, "REMOTE_RELAY_PERMISSION");
  assert.match(r.error, /denied create_session on relay "desk".*Nothing was created\./);
  assert.equal(await sessionCount(), before);
  // Deny grants nothing: asked again.
  const reply2 = relay.say(a, create("Second try"), 60_000);
  const card2 = await waitCard(relay, a);
  assert.notEqual(card2.id, card.id);
  await decide(relay, card2.id, "deny");
  await reply2;
});

test("a card not decided within Longest wait per tool call expires: REMOTE_RELAY_APPROVAL_TIMEOUT and nothing is done", async () => {
  const a = await relay.createSession({ title: "Patient" });
  const before = await sessionCount();
  const reply = relay.say(a, create("Too late"), 60_000);
  const card = await waitCard(relay, a);
  assert.equal(Date.parse(card.expiresAt) - Date.parse(card.createdAt), 10 * MINUTE); // the default of 10 minutes
  await relay.advance(10 * MINUTE - 1);
  assert.equal((await pendingCards(relay, a)).length, 1, "still waiting just before the limit");
  await relay.advance(1);
  const [r] = toolResults(await reply);
  assert.equal(r.code, "REMOTE_RELAY_APPROVAL_TIMEOUT");
  assert.match(r.error, /within 10 minutes.*Nothing was created\./);
  const shown = (await relay.session(a)).cards.find((c: any) => c.id === card.id);
  assert.equal(shown.status, "expired");
  assert.equal(shown.expiredBecause, "timeout");
  assert.equal(await sessionCount(), before);
  assert.equal((await decide(relay, card.id, "allow")).status, 404);
});

test("the wait follows the Longest wait setting", async () => {
  await relay.api("PATCH", "/api/settings", { longestWaitMinutes: 2 });
  try {
    const a = await relay.createSession({ title: "Short wait" });
    const reply = relay.say(a, create("Short"), 60_000);
    const card = await waitCard(relay, a);
    assert.equal(Date.parse(card.expiresAt) - Date.parse(card.createdAt), 2 * MINUTE);
    await relay.advance(2 * MINUTE);
    assert.equal(toolResults(await reply)[0].code, "REMOTE_RELAY_APPROVAL_TIMEOUT");
  } finally {
    await relay.api("PATCH", "/api/settings", { longestWaitMinutes: 10 });
  }
});

test("a conversation with no running turn gets REMOTE_RELAY_NO_ACTIVE_TURN and no card", async () => {
  const a = await relay.createSession({ title: "Idle caller" });
  const mcp = await relay.mcp(a);
  const before = await sessionCount();
  const r = await mcp.call({ action: "create_session", relay: "this", text: "hi", title: "Nope" });
  assert.equal(r.code, "REMOTE_RELAY_NO_ACTIVE_TURN");
  assert.match(r.error, /no running turn.*Nothing was created\./);
  assert.deepEqual(await pendingCards(relay, a), []);
  assert.deepEqual((await relay.session(a)).cards, []);
  assert.equal(await sessionCount(), before);
});

test("the action's own checks come before any card: an unknown model is refused without asking", async () => {
  const a = await relay.createSession({ title: "Checks first" });
  const [r] = toolResults(await relay.say(a, create("Bad model", { model: "gpt-nope" }), 60_000));
  assert.equal(r.code, "REMOTE_RELAY_UNKNOWN_MODEL");
  assert.deepEqual((await relay.session(a)).cards, []);
});

test("a card whose turn is stopped expires and the call does nothing later", async () => {
  const a = await relay.createSession({ title: "Stopped while asking" });
  const before = await sessionCount();
  // A's turn hangs; a call made as A meanwhile raises its card in that turn. (This client
  // does not cancel its call when the turn stops: only the turn's end releases it.)
  relay.say(a, "/hang", 60_000).catch(() => {}); // a stopped turn with no text leaves no reply message
  await relay.waitFor(async () => (await relay.session(a)).state === "running_turn");
  const call = (await relay.mcp(a)).call({ action: "create_session", relay: "this", title: "Orphan", text: "hi" });
  const card = await waitCard(relay, a);
  await relay.api("POST", `/api/sessions/${a}/stop`);
  const r = await call;
  assert.equal(r.code, "REMOTE_RELAY_APPROVAL_TIMEOUT");
  assert.match(r.error, /turn that asked ended.*Nothing was created\./);
  const shown = (await relay.session(a)).cards.find((c: any) => c.id === card.id);
  assert.equal(shown.status, "expired");
  assert.equal(shown.expiredBecause, "turn_ended");
  assert.equal((await decide(relay, card.id, "allow")).status, 404);
  await relay.advance(11 * MINUTE);
  assert.equal(await sessionCount(), before);
});

test("a card raised from a scripted turn that is stopped expires too", async () => {
  const a = await relay.createSession({ title: "Stopped scripted" });
  const before = await sessionCount();
  relay.say(a, create("Orphan two"), 60_000).catch(() => {});
  const card = await waitCard(relay, a);
  await relay.api("POST", `/api/sessions/${a}/stop`);
  const shown = await relay.waitFor(async () =>
    (await relay.session(a)).cards.find((c: any) => c.id === card.id && c.status !== "pending"),
  );
  assert.equal(shown.status, "expired");
  // The agent cancels its tool call as its turn stops; whichever the relay sees first ends the card.
  assert.ok(["turn_ended", "cancelled"].includes(shown.expiredBecause), shown.expiredBecause);
  await relay.advance(11 * MINUTE);
  assert.equal(await sessionCount(), before);
});

test("a call cancelled by its client takes its card with it", async () => {
  const a = await relay.createSession({ title: "Changes its mind" });
  relay.say(a, "/hang", 60_000).catch(() => {});
  await relay.waitFor(async () => (await relay.session(a)).state === "running_turn");
  const mcp = await relay.mcp(a);
  const ac = new AbortController();
  const call = mcp.client.callTool(
    { name: "relay_tool", arguments: { action: "create_session", relay: "this", title: "Never", text: "hi" } },
    undefined,
    { signal: ac.signal },
  );
  call.catch(() => {});
  const card = await waitCard(relay, a);
  ac.abort();
  const shown = await relay.waitFor(async () =>
    (await relay.session(a)).cards.find((c: any) => c.id === card.id && c.status !== "pending"),
  );
  assert.equal(shown.status, "expired");
  assert.equal(shown.expiredBecause, "cancelled");
  await relay.api("POST", `/api/sessions/${a}/stop`);
});

test("GET /api/cards lists pending cards of every conversation, ?session= one; a bad decision is refused", async () => {
  const a = await relay.createSession({ title: "Lister A" });
  const b = await relay.createSession({ title: "Lister B" });
  const ra = relay.say(a, create("From A"), 60_000);
  const rb = relay.say(b, create("From B"), 60_000);
  const ca = await waitCard(relay, a);
  const cb = await waitCard(relay, b);
  const all = (await pendingCards(relay)).map((c) => c.id);
  assert.ok(all.includes(ca.id) && all.includes(cb.id));
  assert.deepEqual(
    (await pendingCards(relay, a)).map((c) => c.id),
    [ca.id],
  );
  const bad = await relay.api("POST", `/api/cards/${ca.id}`, { decision: "maybe" });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.equal((await pendingCards(relay, a)).length, 1);
  assert.equal((await relay.api("POST", "/api/cards/card_nope", { decision: "allow" })).status, 404);
  await decide(relay, ca.id, "deny");
  await decide(relay, cb.id, "deny");
  await Promise.all([ra, rb]);
});
