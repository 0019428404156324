// Cards and their decisions survive a SIGKILL (contract §1): a card pending when the relay
// died shows as expired, its turn ended (the agent ran on with the keeper: its relay_tool
// call failed with the relay and the turn finished saying so), and nothing it asked for
// happens later; what the
// owner allowed (first-session grant) and the loop-protection count are still there.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { decide, pendingCards, promptsFrom, tool, toolResults, waitCard, waitIdle } from "./helpers/control-helpers.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay.stop());

const MINUTE = 60_000;

test("a card pending at SIGKILL shows as expired after restart; its turn ended; no write happens later", async () => {
  const a = await relay.createSession({ title: "Cut off" });
  const b = await relay.createSession({ title: "Never prompted" });
  await relay.api("PATCH", `/api/sessions/${a}`, { mode: "ask" });
  relay
    .say(a, tool({ action: "send", relay: "this", session: b, text: "after restart?", wait_seconds: 0 }), 60_000)
    .catch(() => {});
  const card = await waitCard(relay, a);

  await relay.restart();
  const s = await relay.waitFor(async () => {
    const x = await relay.session(a);
    return x.state === "idle" && x;
  }, 60_000);
  const shown = s.cards.find((c: any) => c.id === card.id);
  assert.equal(shown.status, "expired");
  assert.equal(shown.expiredBecause, "relay_restarted");
  assert.deepEqual(await pendingCards(relay), []);
  const last = s.messages.at(-1);
  assert.equal(last.role, "agent");
  assert.match(last.text, /^tool: \{"ok":false/, JSON.stringify(last));
  // The owner can no longer release it, and time passing does not either.
  const late = await decide(relay, card.id, "allow");
  assert.equal(late.status, 404);
  await relay.advance(15 * MINUTE);
  assert.deepEqual(await promptsFrom(relay, b, a), []);
});

test("decisions survive: the first-session grant and the allowed card; the loop count too, and a prompt from another agent does not reset it", async () => {
  const a = await relay.createSession({ title: "Remembers" });
  const b = await relay.createSession({ title: "Echo" });
  // One owner turn: the first create_session (allowed) and 29 sends: 30 prompts to other agents.
  const create = tool({ action: "create_session", relay: "this", title: "First child", text: "hi", wait_seconds: 0 });
  const sends = Array.from({ length: 29 }, () =>
    tool({ action: "send", relay: "this", session: b, text: "x", wait_seconds: 0 }),
  );
  const reply = relay.say(a, [create, ...sends].join("\n"), 120_000);
  const card = await waitCard(relay, a);
  await decide(relay, card.id, "allow");
  assert.ok(toolResults(await reply).every((r) => r.ok));
  await waitIdle(relay, b, 120_000);

  await relay.restart();
  assert.equal((await relay.session(a)).cards.find((c: any) => c.id === card.id).status, "allowed");
  // B (an agent) prompts A with a script: A's turn is not the owner's message, so A's count
  // (30, kept across the restart) is not reset, and A's first-session grant still holds.
  const script = [
    tool({ action: "create_session", relay: "this", title: "Second child", text: "hi", wait_seconds: 0 }),
    tool({ action: "send", relay: "this", session: b, text: "31st", wait_seconds: 0 }),
  ].join("\n");
  const viaB = await (await relay.mcp(b)).call({
    action: "send",
    relay: "this",
    session: a,
    text: script,
    wait_seconds: 0,
  });
  assert.equal(viaB.ok, true, JSON.stringify(viaB));
  const loopCard = await waitCard(relay, a);
  // The create_session (31st prompt) is the one asked about: only for loop protection, not as a first session.
  assert.equal(loopCard.action, "create_session");
  assert.deepEqual(loopCard.reasons.length, 1);
  assert.match(loopCard.reasons[0], /loop protection: this conversation already sent 30 prompts/);
  await decide(relay, loopCard.id, "allow");
  // Allowed: 30 more, so the next send passes without a card.
  const done = await relay.waitFor(async () => {
    const s = await relay.session(a);
    return s.state === "idle" ? s.messages.at(-1) : undefined;
  }, 60_000);
  const results = toolResults(done);
  assert.equal(results.length, 2);
  assert.ok(
    results.every((r) => r.ok),
    done.text,
  );
  assert.equal((await relay.session(a)).cards.filter((c: any) => c.status === "pending").length, 0);
});
