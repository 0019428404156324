// Relay modes (contract §4.3): agent, ask, plan per session. In ask and plan every write
// action needs the owner's card; reads never do. A send without mode passes on the
// caller's mode to the session it prompts.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { decide, pendingCards, promptsFrom, tool, toolResults, waitCard, waitIdle } from "./helpers/control-helpers.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay.stop());

const setMode = (id: string, mode: string) => relay.api("PATCH", `/api/sessions/${id}`, { mode });

test("the owner sets a session's mode (PATCH /api/sessions/:id); lists and relay_info show it; a bad mode changes nothing", async () => {
  const a = await relay.createSession({ title: "Moded" });
  assert.equal((await relay.session(a)).mode, "agent");
  const r = await setMode(a, "plan");
  assert.equal(r.status, 200);
  assert.equal(r.json.mode, "plan");
  const listed = (await relay.api("GET", "/api/sessions")).json.sessions.find((s: any) => s.id === a);
  assert.equal(listed.mode, "plan");
  const bad = await setMode(a, "yolo");
  assert.equal(bad.status, 400);
  assert.equal(bad.json.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.equal((await relay.session(a)).mode, "plan");
  const info = await (await relay.mcp(a)).call({ action: "relay_info", relay: "this" });
  assert.equal(info.mode, "plan");
});

test("in ask mode a send waits for a card naming action, relay, session and details; reads in the same turn ask nobody", async () => {
  const a = await relay.createSession({ title: "Asker" });
  const b = await relay.createSession({ title: "Target" });
  await setMode(a, "ask");
  const reply = relay.say(
    a,
    [
      tool({ action: "list_sessions", relay: "this" }),
      tool({ action: "read_session", relay: "this", session: b }),
      tool({ action: "send", relay: "this", session: b, text: "hello", wait_seconds: 0 }),
    ].join("\n"),
    60_000,
  );
  const card = await waitCard(relay, a);
  assert.equal(card.action, "send");
  assert.equal(card.relay, "desk");
  assert.equal(card.targetSession, b);
  assert.equal(card.targetTitle, "Target");
  assert.ok(card.details.includes("Mode: ask"), JSON.stringify(card.details));
  assert.match(card.reasons.join(" "), /ask mode/);
  assert.match(card.text, /send on relay "desk" · session "Target"/);
  assert.deepEqual(await promptsFrom(relay, b, a), [], "nothing is sent before Allow");
  await decide(relay, card.id, "allow");
  const [list, read, sent] = toolResults(await reply);
  assert.equal(list.ok, true);
  assert.equal(read.ok, true);
  assert.equal(sent.ok, true, JSON.stringify(sent));
  assert.equal((await promptsFrom(relay, b, a)).length, 1);
  // One card in all: the reads raised none.
  assert.equal((await relay.session(a)).cards.length, 1);
  // The send named no mode: the target now runs in the caller's mode.
  await waitIdle(relay, b);
  assert.equal((await relay.session(b)).mode, "ask");
});

test("in plan mode stop and archive wait for a card; Deny refuses with REMOTE_RELAY_PERMISSION and changes nothing", async () => {
  const a = await relay.createSession({ title: "Planner" });
  const b = await relay.createSession({ title: "Keep me" });
  await setMode(a, "plan");
  const reply = relay.say(
    a,
    [tool({ action: "archive", relay: "this", session: b }), tool({ action: "stop", relay: "this", session: b })].join(
      "\n",
    ),
    60_000,
  );
  const archiveCard = await waitCard(relay, a);
  assert.equal(archiveCard.action, "archive");
  assert.match(archiveCard.reasons.join(" "), /plan mode/);
  await decide(relay, archiveCard.id, "deny");
  const stopCard = await relay.waitFor(async () => (await pendingCards(relay, a)).find((c) => c.action === "stop"));
  await decide(relay, stopCard.id, "deny");
  const [archived, stopped] = toolResults(await reply);
  assert.equal(archived.code, "REMOTE_RELAY_PERMISSION");
  assert.match(archived.error, /denied archive on relay "desk" · session "Keep me".*Nothing was archived\./);
  assert.equal(stopped.code, "REMOTE_RELAY_PERMISSION");
  assert.match(stopped.error, /Nothing was stopped\./);
  assert.equal((await relay.session(b)).archived, undefined);
});

test("a write in ask mode with no running turn gets REMOTE_RELAY_NO_ACTIVE_TURN, no card, nothing sent", async () => {
  const a = await relay.createSession({ title: "Idle asker" });
  const b = await relay.createSession({ title: "Untouched" });
  await setMode(a, "ask");
  const mcp = await relay.mcp(a);
  const r = await mcp.call({ action: "send", relay: "this", session: b, text: "hi", wait_seconds: 0 });
  assert.equal(r.code, "REMOTE_RELAY_NO_ACTIVE_TURN");
  assert.match(r.error, /Nothing was sent\./);
  assert.deepEqual(await pendingCards(relay, a), []);
  assert.deepEqual(await promptsFrom(relay, b, a), []);
  // Reads still work without a turn.
  assert.equal((await mcp.call({ action: "list_sessions", relay: "this" })).ok, true);
  // A refusal found by the action's own checks comes before the card question.
  const missing = await mcp.call({ action: "send", relay: "this", session: "ses_missing", text: "hi" });
  assert.equal(missing.code, "REMOTE_RELAY_NOT_FOUND");
});

test("in agent mode a send needs no card; its mode sets the target's, and without mode the caller's mode passes on", async () => {
  const a = await relay.createSession({ title: "Agent caller" });
  const b = await relay.createSession({ title: "Receiver" });
  const mcp = await relay.mcp(a);
  const r1 = await mcp.call({ action: "send", relay: "this", session: b, text: "one", wait_seconds: 0, mode: "plan" });
  assert.equal(r1.ok, true, JSON.stringify(r1));
  assert.equal((await relay.session(b)).mode, "plan");
  await waitIdle(relay, b);
  const r2 = await mcp.call({ action: "send", relay: "this", session: b, text: "two", wait_seconds: 0 });
  assert.equal(r2.ok, true);
  assert.equal((await relay.session(b)).mode, "agent");
  assert.deepEqual((await relay.session(a)).cards, []);
});
