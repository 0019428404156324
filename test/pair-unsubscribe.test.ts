// The owner's Unsubscribe on a subscription held on a paired relay ends it on both relays.
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

test("Unsubscribe on the watcher's relay ends the subscription on the watched relay too", async () => {
  const msg = await a.api("POST", `/api/sessions/${conv}/messages`, {
    text: tool({ action: "subscribe", relay: "bbox", sessions: [target] }),
  });
  await decide(a, (await waitCard(a, conv)).id, "allow");
  const reply = await a.waitFor(async () => {
    const s = await a.session(conv);
    const i = s.messages.findIndex((m: any) => m.id === msg.json.message_id);
    return s.state !== "running_turn" && i >= 0
      ? s.messages.slice(i + 1).find((m: any) => m.role === "agent")
      : undefined;
  });
  const [sub] = toolResults(reply);
  assert.equal(sub.ok, true, JSON.stringify(sub));
  const id = sub.subscription.id;
  assert.equal((await a.api("DELETE", `/api/subscriptions/${id}`)).status, 200);
  const there = await a.waitFor(async () => {
    const l = await agent.call({ action: "list_subscriptions", relay: "bbox" });
    const s = l.subscriptions.find((x: any) => x.id === id);
    return s && !s.active ? s : undefined;
  }, 90_000);
  assert.equal(there.endReason, "unsubscribed");
});
