// Compaction across a link (contract §3): the new conversation takes over the subscriptions
// the old one held on a paired relay — the mirror here and the stand-in there — so events
// come to it, and it sees and ends them there as its own.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { TestRelay } from "./helpers/relay-process.ts";
import { type PairedRelays, eventTexts, pairedRelays } from "./helpers/pairing.ts";
import { tool, toolResults, waitCard, decide } from "./helpers/control-helpers.ts";

let a: TestRelay;
let b: TestRelay;
let conv: string;
let target: string;

let relays: PairedRelays;
before(async () => {
  relays = await pairedRelays({ conv: "Watcher", target: "Build", mention: "@bbox" });
  ({ a, b, conv, target } = relays);
});

after(() => relays?.stop());

test("compaction moves the subscriptions held on a paired relay to the new conversation", async () => {
  const msg = await a.api("POST", `/api/sessions/${conv}/messages`, {
    text: tool({ action: "subscribe", relay: "bbox", sessions: [target], events: ["turn_end"] }),
  });
  await decide(a, (await waitCard(a, conv)).id, "allow");
  const reply = await a.waitFor(async () => {
    const s = await a.session(conv);
    const i = s.messages.findIndex((m: any) => m.id === msg.json.message_id);
    return s.state !== "running_turn" && i >= 0
      ? s.messages.slice(i + 1).find((m: any) => m.role === "agent")
      : undefined;
  });
  const sub = toolResults(reply)[0];
  assert.equal(sub.ok, true, JSON.stringify(sub));
  const id = sub.subscription.id;

  const r = await a.api("POST", `/api/sessions/${conv}/compact`);
  assert.equal(r.status, 201, JSON.stringify(r.json));
  const next: string = r.json.id;
  assert.ok(next && next !== conv, JSON.stringify(r.json));
  await a.waitFor(async () => (await a.session(next)).state !== "running_turn");
  const agent = await a.mcp(next);
  const here = await agent.call({ action: "list_subscriptions" });
  assert.deepEqual(
    here.subscriptions.map((s: any) => [s.id, s.relay, s.active]),
    [[id, "bbox", true]],
  );
  // There, the stand-in of the old conversation now stands for the new one.
  const there = await a.waitFor(async () => {
    const l = await agent.call({ action: "list_subscriptions", relay: "bbox" });
    return l.subscriptions?.some((s: any) => s.id === id && s.active) ? l : undefined;
  }, 90_000);
  assert.ok(there);

  await b.say(target, "/reply after compaction");
  const texts = await a.waitFor(async () => {
    await a.advance(31_000);
    const t = (await eventTexts(a, next)).join("\n");
    return /after compaction/.test(t) ? t : undefined;
  }, 90_000);
  assert.match(texts, /bbox · session "Build" .*turn_end \(done\) "after compaction/);
  assert.doesNotMatch((await eventTexts(a, conv)).join("\n"), /after compaction/);

  // The new conversation ends it there as its own.
  const un = await agent.call({ action: "unsubscribe", relay: "bbox", subscription_id: id });
  assert.equal(un.ok, true, JSON.stringify(un));
});
