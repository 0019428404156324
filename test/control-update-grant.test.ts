// Who may change what (seed §8.2 update_session, contract §5.3): an agent changes sessions
// its conversation started freely; any other session needs the owner's Allow, asked once
// per conversation and relay. ask/plan add the usual write card. This file tests the card
// mechanism (the once grant); update_session's own rules are tested with that action.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { decide, pendingCards, tool, toolResults, waitCard } from "./helpers/control-helpers.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay.stop());

const update = (session: string, settings: Record<string, unknown>) =>
  tool({ action: "update_session", relay: "this", session, ...settings });

test("changing a session the conversation did not start asks once per conversation and relay; the card lists the changes", async () => {
  const a = await relay.createSession({ title: "Changer" });
  const b = await relay.createSession({ title: "Owner's B" });
  const c = await relay.createSession({ title: "Owner's C" });

  const denied = relay.say(a, update(b, { effort: "low", title: "Renamed B" }), 60_000);
  const card = await waitCard(relay, a);
  assert.equal(card.action, "update_session");
  assert.equal(card.targetSession, b);
  assert.match(card.reasons.join(" "), /did not start/);
  assert.match(card.text, /Effort: low · Title: Renamed B/);
  await decide(relay, card.id, "deny");
  const [r1] = toolResults(await denied);
  assert.equal(r1.code, "REMOTE_RELAY_PERMISSION");
  assert.match(r1.error, /Nothing was changed\./);
  assert.equal((await relay.session(b)).title, "Owner's B");

  // Deny granted nothing: asked again; Allow this time.
  const allowed = relay.say(a, update(b, { title: "Renamed B" }), 60_000);
  await decide(relay, (await waitCard(relay, a)).id, "allow");
  assert.equal(toolResults(await allowed)[0].ok, true);
  assert.equal((await relay.session(b)).title, "Renamed B");

  // The Allow covers the conversation's later changes to such sessions on this relay.
  const [r3] = toolResults(await relay.say(a, update(c, { title: "Renamed C" }), 60_000));
  assert.equal(r3.ok, true, JSON.stringify(r3));
  assert.equal((await relay.session(c)).title, "Renamed C");
  assert.deepEqual(await pendingCards(relay, a), []);
});

test("a session the conversation started is its own to change: no card in agent mode, the write card in ask mode", async () => {
  const a = await relay.createSession({ title: "Parent" });
  const made = relay.say(
    a,
    tool({ action: "create_session", relay: "this", title: "Kid", text: "hi", wait_seconds: 0 }),
    60_000,
  );
  await decide(relay, (await waitCard(relay, a)).id, "allow");
  const kid = toolResults(await made)[0].session;
  const [r] = toolResults(await relay.say(a, update(kid, { title: "Kid renamed" }), 60_000));
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal((await relay.session(a)).cards.length, 1, "only the first-session card");

  await relay.api("PATCH", `/api/sessions/${a}`, { mode: "plan" });
  const asked = relay.say(a, update(kid, { title: "Kid again" }), 60_000);
  const card = await waitCard(relay, a);
  assert.deepEqual(card.reasons, ["the conversation is in plan mode"]);
  await decide(relay, card.id, "allow");
  assert.equal(toolResults(await asked)[0].ok, true);
});

test("without a running turn to ask in, changing another's session is refused with REMOTE_RELAY_NO_ACTIVE_TURN", async () => {
  const a = await relay.createSession({ title: "Idle changer" });
  const b = await relay.createSession({ title: "Untouched" });
  const r = await (await relay.mcp(a)).call({ action: "update_session", relay: "this", session: b, title: "Nope" });
  assert.equal(r.code, "REMOTE_RELAY_NO_ACTIVE_TURN");
  assert.equal((await relay.session(b)).title, "Untouched");
  assert.deepEqual(await pendingCards(relay, a), []);
});
