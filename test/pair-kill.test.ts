// SIGKILL of the other relay during a remote send (issue 11): the prompt is sent once, the
// call keeps waiting across the restart and answers with where the turn ended.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { type TestRelay, realSleep, type McpSession } from "./helpers/relay-process.ts";
import { type LinkProxy, type PairedRelays, pairedRelays } from "./helpers/pairing.ts";

let b: TestRelay;
let proxy: LinkProxy;
let agent: McpSession;
let target: string;

let relays: PairedRelays;
before(async () => {
  relays = await pairedRelays({ conv: "Sender", target: "Worker", mention: "@bbox", proxy: true });
  ({ b, proxy, agent, target } = relays as typeof relays & { proxy: LinkProxy });
});

after(() => relays?.stop());

test("the other relay is SIGKILLed while a remote send waits: the call survives it, the prompt was sent once", async () => {
  const call = agent.call({
    action: "send",
    relay: "bbox",
    session: target,
    text: "/reply before\n/sleep 4000\n/reply after",
    wait_seconds: 120,
  });
  // The turn runs there (its agent has the prompt); then the relay dies and comes back on the same address. Its agent
  // runs on with the keeper: the turn finishes there and the answer still comes back.
  await b.waitFor(async () => (await b.session(target)).inFlight?.text === "before", 60_000);
  await b.restart();
  const r = await call;
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.relay, "bbox");
  assert.equal(r.status, "done", JSON.stringify(r));
  // (The remote prompt's first line is echoed by the scripted agent.)
  assert.match(r.reply.text, /^before\nafter\necho: \[Remote prompt/);
  const prompts = (await b.session(target)).messages.filter((m: any) => m.role === "remote");
  assert.equal(prompts.length, 1, "sent once");
  assert.equal(prompts[0].id, r.message_id);
});

test("a link cut before the prompt is sent: OFFLINE, and nothing is sent when it comes back", async () => {
  proxy.cut();
  const r = await agent.call({
    action: "send",
    relay: "bbox",
    session: target,
    text: "/reply not sent",
    wait_seconds: 5,
  });
  assert.equal(r.code, "REMOTE_RELAY_OFFLINE");
  assert.match(r.error, /Nothing was sent\./);
  proxy.restore();
  await realSleep(500);
  const prompts = (await b.session(target)).messages.filter((m: any) => /not sent/.test(m.text));
  assert.equal(prompts.length, 0);
});
