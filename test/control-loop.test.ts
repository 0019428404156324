// Loop protection (contract §5.4): a conversation sends 30 prompts to other agents, then a
// card asks the owner; Allow grants 30 more; the owner's message in that conversation
// resets the count; answers to questions and prompts from other agents do not.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { decide, pendingCards, promptsFrom, tool, toolResults, waitCard, waitIdle } from "./helpers/control-helpers.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start();
});
after(() => relay.stop());

const send = (session: string, text: string) => tool({ action: "send", relay: "this", session, text, wait_seconds: 0 });
const sends = (n: number, session: string, text = "x") =>
  Array.from({ length: n }, () => send(session, text)).join("\n");

/** Waits until exactly `n` prompts from `from` reached `target`, and the card asks about the next. */
async function loopCard(target: string, from: string, n: number) {
  const card = await waitCard(relay, from);
  assert.equal(card.action, "send");
  assert.equal(card.targetSession, target);
  assert.match(card.reasons.join(" "), /loop protection/);
  assert.equal((await promptsFrom(relay, target, from)).length, n, "nothing more is sent while the card waits");
  return card;
}

test("two agents prompting each other: the 31st prompt waits for the owner; Deny stops the loop with exactly 30 prompts sent", async () => {
  const a = await relay.createSession({ title: "Ping" });
  const b = await relay.createSession({ title: "Pong" });
  // Every prompt A sends makes B prompt A back: both agents prompt each other.
  const pingBack = send(a, "pong");
  const reply = relay.say(a, sends(31, b, pingBack), 120_000);
  const card = await loopCard(b, a, 30);
  assert.match(card.reasons.join(" "), /already sent 30 prompts/);
  // B, answering, prompted A 30 times: within its own allowance, no card for B.
  await relay.waitFor(async () => (await promptsFrom(relay, a, b)).length === 30 || undefined, 60_000);
  assert.deepEqual(await pendingCards(relay, b), []);
  // The clock moving a little does not release it.
  await relay.advance(60_000);
  assert.equal((await promptsFrom(relay, b, a)).length, 30);

  await decide(relay, card.id, "deny");
  const results = toolResults(await reply);
  assert.equal(results.length, 31);
  assert.ok(
    results.slice(0, 30).every((r) => r.ok),
    "the first 30 went through",
  );
  assert.equal(results[30].code, "REMOTE_RELAY_PERMISSION");
  assert.match(results[30].error, /Nothing was sent\./);
  assert.equal((await promptsFrom(relay, b, a)).length, 30);
  await waitIdle(relay, a, 120_000);
  await waitIdle(relay, b, 120_000);
});

test("Allow grants 30 more: the 61st prompt asks again; the owner's message resets the count", async () => {
  const a = await relay.createSession({ title: "Chatty" });
  const b = await relay.createSession({ title: "Listener" });
  const reply = relay.say(a, sends(61, b), 120_000);
  const first = await loopCard(b, a, 30);
  await decide(relay, first.id, "allow");
  const second = await relay.waitFor(async () => (await pendingCards(relay, a)).find((c) => c.id !== first.id), 60_000);
  assert.match(second.reasons.join(" "), /already sent 60 prompts/);
  assert.equal((await promptsFrom(relay, b, a)).length, 60);
  await decide(relay, second.id, "deny");
  const results = toolResults(await reply);
  assert.equal(results.filter((r) => r.ok).length, 60);
  assert.equal(results[60].code, "REMOTE_RELAY_PERMISSION");

  // The owner speaks in A: the count starts again, so 30 more go out before a card.
  const again = relay.say(a, sends(31, b), 120_000);
  const third = await loopCard(b, a, 90);
  assert.match(third.reasons.join(" "), /already sent 30 prompts/);
  await decide(relay, third.id, "deny");
  assert.equal(toolResults(await again)[30].code, "REMOTE_RELAY_PERMISSION");
});

test("the owner answering a question does not reset the count", async () => {
  const a = await relay.createSession({ title: "Questioner" });
  const b = await relay.createSession({ title: "Sink" });
  const reply = relay.say(
    a,
    [sends(30, b), "/ask_user Keep going? | yes | no", send(b, "after the answer")].join("\n"),
    120_000,
  );
  const q = await relay.waitFor(async () => (await relay.session(a)).pendingQuestions[0], 60_000);
  assert.equal((await relay.api("POST", `/api/questions/${q.id}`, { choice: "yes" })).status, 200);
  const card = await loopCard(b, a, 30);
  await decide(relay, card.id, "deny");
  const text = (await reply).text;
  assert.match(text, /answer: yes/);
  assert.equal(toolResults({ text }).at(-1).code, "REMOTE_RELAY_PERMISSION");
});

test("create_session counts as a prompt to another agent", async () => {
  const a = await relay.createSession({ title: "Starter" });
  const b = await relay.createSession({ title: "Other" });
  const create = tool({ action: "create_session", relay: "this", title: "Child", text: "hi", wait_seconds: 0 });
  const reply = relay.say(a, [create, sends(29, b), send(b, "31st")].join("\n"), 120_000);
  const once = await waitCard(relay, a);
  assert.equal(once.action, "create_session");
  await decide(relay, once.id, "allow");
  const card = await relay.waitFor(async () => (await pendingCards(relay, a)).find((c) => c.id !== once.id), 60_000);
  assert.match(card.reasons.join(" "), /loop protection: this conversation already sent 30 prompts/);
  assert.equal((await promptsFrom(relay, b, a)).length, 29);
  await decide(relay, card.id, "deny");
  assert.equal(toolResults(await reply).at(-1).code, "REMOTE_RELAY_PERMISSION");
});

test("an `ask` on behalf of another session does not count", async () => {
  const a = await relay.createSession({ title: "Asks for others" });
  const b = await relay.createSession({ title: "Asked about" });
  const askFor = tool({ action: "ask", session: b, question: "Is B allowed to deploy?" });
  const reply = relay.say(a, [sends(29, b), askFor, send(b, "30th"), send(b, "31st")].join("\n"), 120_000);
  const card = await loopCard(b, a, 30);
  await decide(relay, card.id, "deny");
  const results = toolResults(await reply);
  assert.equal(results[29].ok, true, JSON.stringify(results[29]));
  assert.ok(
    results.slice(0, 31).every((r) => r.ok),
    "29 sends, the ask and the 30th send pass",
  );
  assert.equal(results[31].code, "REMOTE_RELAY_PERMISSION");
});
