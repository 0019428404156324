// No echo across a link (relay_tool.md §9 "Fewer wake-ups"): a conversation that sent a
// prompt to a session on a paired relay and waited for its end is not woken by that turn's
// turn_end through its own subscription there; a prompt it did not wait for still wakes it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { TestRelay, McpSession } from "./helpers/relay-process.ts";
import { type PairedRelays, eventTexts, pairedRelays } from "./helpers/pairing.ts";
import { tool, toolResults, waitCard, decide } from "./helpers/control-helpers.ts";

let a: TestRelay;
let b: TestRelay;
let conv: string;
let agent: McpSession;
let target: string;

let relays: PairedRelays;
before(async () => {
  relays = await pairedRelays({ conv: "Watcher", target: "Build", mention: "@bbox" });
  ({ a, b, conv, agent, target } = relays);
});

after(() => relays?.stop());

const all = async () => (await eventTexts(a, conv)).join("\n");

test("a remote send waited for to its end does not wake the sender through its subscription there", async () => {
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
  assert.equal(toolResults(reply)[0].ok, true, JSON.stringify(toolResults(reply)[0]));

  const waited = await agent.call({
    action: "send",
    relay: "bbox",
    session: target,
    text: "/reply waited-for reply",
    wait_seconds: 30,
  });
  assert.equal(waited.status, "done", JSON.stringify(waited));
  // Not waited for: its turn_end wakes the watcher, and tells that the link carried events.
  const unwaited = await agent.call({
    action: "send",
    relay: "bbox",
    session: target,
    text: "/reply not waited",
    wait_seconds: 0,
  });
  assert.equal(unwaited.ok, true, JSON.stringify(unwaited));
  await b.say(target, "/reply owner there");
  const texts = await a.waitFor(async () => {
    await a.advance(31_000);
    const t = await all();
    return /not waited/.test(t) && /owner there/.test(t) ? t : undefined;
  }, 90_000);
  assert.match(texts, /bbox · session "Build" .*turn_end \(done\) "not waited/);
  assert.doesNotMatch(texts, /waited-for reply/, "the reply it waited for does not come again as an event");
  // Durable: the echo stays dropped after the watcher's relay restarts.
  await a.restart();
  await a.advance(31_000);
  await a.advance(31_000);
  assert.doesNotMatch(await all(), /waited-for reply/);
});
