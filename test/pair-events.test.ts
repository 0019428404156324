// Events across a link (seed §9 "On paired relays", §11): the watcher's relay gets the other
// relay's events once, in lines naming that relay; a cut link is replayed between link_lost
// and link_restored; SIGKILL of either side loses and repeats nothing; unpairing ends it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { TestRelay, McpSession } from "./helpers/relay-process.ts";
import { type LinkProxy, type PairedRelays, eventTexts, pairedRelays } from "./helpers/pairing.ts";
import { tool, toolResults, waitCard, decide } from "./helpers/control-helpers.ts";

let a: TestRelay;
let b: TestRelay;
let proxy: LinkProxy;
let conv: string;
let agent: McpSession;
let target: string;
let subId: string;

let relays: PairedRelays;
before(async () => {
  relays = await pairedRelays({ conv: "Watcher", target: "Build", mention: "watch bbox", proxy: true });
  ({ a, b, proxy, conv, agent, target } = relays as typeof relays & { proxy: LinkProxy });
});

after(() => relays?.stop());

const count = (texts: string[], re: RegExp) =>
  texts
    .join("\n")
    .split("\n")
    .filter((l) => re.test(l)).length;

/** Moves the watcher's clock past the gathering window until a new event message shows. */
async function nextEvents(before: number): Promise<string[]> {
  return a.waitFor(async () => {
    await a.advance(31_000);
    const t = await eventTexts(a, conv);
    return t.length > before ? t : undefined;
  }, 60_000);
}

test("subscribe on a paired relay: approved here, mirrored here, events arrive once with the relay's name", async () => {
  const r = await a.api("POST", `/api/sessions/${conv}/messages`, {
    text: tool({
      action: "subscribe",
      relay: "bbox",
      sessions: [target],
      events: ["turn_end", "error", "question_asked"],
    }),
  });
  const card = await waitCard(a, conv);
  assert.match(card.text, /subscribe on relay "bbox"/);
  await decide(a, card.id, "allow");
  const reply = await a.waitFor(async () => {
    const s = await a.session(conv);
    const i = s.messages.findIndex((m: any) => m.id === r.json.message_id);
    return s.state !== "running_turn" && i >= 0
      ? s.messages.slice(i + 1).find((m: any) => m.role === "agent")
      : undefined;
  });
  const [sub] = toolResults(reply);
  assert.equal(sub.ok, true, JSON.stringify(sub));
  subId = sub.subscription.id;
  const here = await agent.call({ action: "list_subscriptions" });
  assert.deepEqual(
    here.subscriptions.map((s: any) => [s.id, s.relay, s.active]),
    [[subId, "bbox", true]],
  );
  const there = await agent.call({ action: "list_subscriptions", relay: "bbox" });
  assert.deepEqual(
    there.subscriptions.map((s: any) => s.id),
    [subId],
  );

  const before = (await eventTexts(a, conv)).length;
  await b.say(target, "/reply shipped it");
  const texts = await nextEvents(before);
  const last = texts[texts.length - 1];
  assert.match(
    last,
    new RegExp(`\\[relay event\\] bbox · session "Build" \\(${target}\\): turn_end \\(done\\) "shipped it"`),
  );
  // Urgent events cross at once (no clock step here).
  const n = (await eventTexts(a, conv)).length;
  await b.say(target, "/error boom");
  const urgent = await a.waitFor(async () => {
    const t = await eventTexts(a, conv);
    return t.length > n ? t : undefined;
  });
  assert.match(urgent[urgent.length - 1], /bbox · session "Build" .*: error "boom"/);
  assert.equal(count(await eventTexts(a, conv), /shipped it/), 1, "delivered once");
});

test("a cut link: the other relay keeps the events and replays them between link_lost and link_restored", async () => {
  const before = (await eventTexts(a, conv)).length;
  proxy.cut();
  // The watcher's relay notices at its next poll; the other relay keeps what happens.
  await a.waitFor(async () => !(await a.api("GET", "/api/relays")).json.relays[0].online);
  await b.say(target, "/reply first while down");
  await b.say(target, "/reply second while down");
  proxy.restore();
  const texts = await a.waitFor(async () => {
    await a.advance(31_000);
    const t = (await eventTexts(a, conv)).slice(before).join("\n");
    return /link_restored/.test(t) ? t : undefined;
  }, 90_000);
  const lines = texts.split("\n").filter((l) => l.startsWith("[relay event] "));
  const order = lines.map((l) =>
    /link_lost/.test(l) ? "lost" : /link_restored/.test(l) ? "restored" : /replayed/.test(l) ? "replayed" : "other",
  );
  assert.deepEqual(order, ["lost", "replayed", "replayed", "restored"], texts);
  assert.match(lines[1], /bbox · replayed · session "Build" .*"first while down"/);
  assert.match(lines[2], /"second while down"/);
  assert.match(lines[3], /2 events replayed/);
});

test("SIGKILL of the other relay and of the watcher's relay: nothing lost, nothing repeated", async () => {
  const before = (await eventTexts(a, conv)).join("\n");
  // The other relay dies right after the event is written there.
  proxy.cut();
  await b.say(target, "/reply before the kill");
  await b.restart();
  // The watcher's relay dies with events waiting there, then both come back.
  await a.restart();
  proxy.restore();
  agent = await a.mcp(conv);
  await b.say(target, "/reply after the kill");
  const texts = await a.waitFor(async () => {
    await a.advance(31_000);
    const t = (await eventTexts(a, conv)).join("\n");
    return /after the kill/.test(t) ? t : undefined;
  }, 90_000);
  assert.equal(count([texts], /before the kill/) - count([before], /before the kill/), 1);
  assert.equal(count([texts], /after the kill/), 1);
});

test("questions about a session there: answered there, the answer reaches the asker here", async () => {
  const q = await agent.call({
    action: "ask",
    relay: "bbox",
    session: target,
    question: "Ship tonight?",
    options: ["Yes", "No"],
  });
  assert.equal(q.ok, true, JSON.stringify(q));
  const inbox = (await b.api("GET", "/api/inbox")).json.questions;
  assert.ok(
    inbox.some((x: any) => x.id === q.question_id),
    "kept on the relay of the session asked about",
  );
  const listed = await agent.call({ action: "list_questions", relay: "bbox" });
  assert.deepEqual(
    listed.questions.map((x: any) => x.id ?? x.question_id),
    [q.question_id],
  );
  await b.api("POST", `/api/questions/${q.question_id}`, { choice: "Yes" });
  // The question_asked event crosses the link on its own time: wait for the answer's event
  // itself, not for "one more event".
  const answered = new RegExp(`bbox · .*question_answered ${q.question_id}`);
  const texts = await a.waitFor(async () => {
    const t = await eventTexts(a, conv);
    return t.some((x) => answered.test(x)) ? t : undefined;
  });
  assert.equal(texts.filter((x) => answered.test(x)).length, 1, "delivered once");
});

test("unpairing ends the subscriptions on it, here and there", async () => {
  const r = await a.api("DELETE", "/api/relays/bbox");
  assert.equal(r.json.reached, true, "the other relay was told");
  const here = await agent.call({ action: "list_subscriptions" });
  const mine = here.subscriptions.find((s: any) => s.id === subId);
  assert.equal(mine.active, false);
  assert.equal(mine.endReason, "unpaired");
  assert.equal((await b.api("GET", "/api/relays")).json.relays.length, 0, "the other side dropped its end");
});
