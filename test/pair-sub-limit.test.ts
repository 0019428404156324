// The 20-subscription limit of a conversation (contract §6) spans relays: subscriptions it
// holds on a paired relay (their mirrors here) count on its own relay, and the paired relay
// counts what the conversation holds elsewhere on top of its own.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { TestRelay, McpSession } from "./helpers/relay-process.ts";
import { type PairedRelays, pairedRelays } from "./helpers/pairing.ts";
import { tool, toolResults, waitCard, decide } from "./helpers/control-helpers.ts";

let a: TestRelay;
let conv: string;
let agent: McpSession;
let target: string;

let relays: PairedRelays;
before(async () => {
  relays = await pairedRelays({ conv: "Watcher", target: "Build", mention: "@bbox" });
  ({ a, conv, agent, target } = relays);
});

after(() => relays?.stop());

/** A call the owner allows on a card (the first subscribe of a conversation asks). */
async function allowed(args: Record<string, unknown>): Promise<any> {
  const msg = await a.api("POST", `/api/sessions/${conv}/messages`, { text: tool(args) });
  await decide(a, (await waitCard(a, conv)).id, "allow");
  const reply = await a.waitFor(async () => {
    const s = await a.session(conv);
    const i = s.messages.findIndex((m: any) => m.id === msg.json.message_id);
    return s.state !== "running_turn" && i >= 0
      ? s.messages.slice(i + 1).find((m: any) => m.role === "agent")
      : undefined;
  });
  return toolResults(reply)[0];
}

test("subscriptions on a paired relay count toward the conversation's 20 on both relays", async () => {
  const local = await a.createSession({ title: "Local" });
  const remote1 = await allowed({ action: "subscribe", relay: "bbox", sessions: [target] });
  assert.equal(remote1.ok, true, JSON.stringify(remote1));
  const first = await allowed({ action: "subscribe", sessions: [local] });
  assert.equal(first.ok, true, JSON.stringify(first));
  const ids = [first.subscription.id];
  for (let i = 0; i < 18; i++) {
    const r = await agent.call({ action: "subscribe", sessions: [local] });
    assert.equal(r.ok, true, JSON.stringify(r));
    ids.push(r.subscription.id);
  }
  // 19 here and 1 on bbox: the 21st is refused here, counting the one there.
  const here = await agent.call({ action: "subscribe", sessions: [local] });
  assert.equal(here.code, "REMOTE_RELAY_SUBSCRIPTION_LIMIT", JSON.stringify(here));
  assert.match(here.error, /already holds 20 subscriptions \(at most 20 at a time\)/);
  // And on bbox, which holds only one of them itself.
  const there = await agent.call({ action: "subscribe", relay: "bbox", sessions: [target] });
  assert.equal(there.code, "REMOTE_RELAY_SUBSCRIPTION_LIMIT", JSON.stringify(there));
  assert.match(there.error, /already holds 20 subscriptions/);
  assert.equal(
    (await agent.call({ action: "list_subscriptions", relay: "bbox" })).subscriptions.filter((s: any) => s.active)
      .length,
    1,
  );

  // One ended here: one more fits, on either relay, and then none.
  assert.equal((await agent.call({ action: "unsubscribe", subscription_id: ids[0] })).ok, true);
  const remote2 = await agent.call({ action: "subscribe", relay: "bbox", sessions: [target] });
  assert.equal(remote2.ok, true, JSON.stringify(remote2));
  const after = await agent.call({ action: "subscribe", sessions: [local] });
  assert.equal(after.code, "REMOTE_RELAY_SUBSCRIPTION_LIMIT", JSON.stringify(after));
});
