// The Inbox across a link (seed §11): a question asked from here about a session on a paired
// relay is kept there, listed in this relay's Inbox too, and answered from here via this relay.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { TestRelay, McpSession } from "./helpers/relay-process.ts";
import { type PairedRelays, eventTexts, pairedRelays } from "./helpers/pairing.ts";

let a: TestRelay;
let b: TestRelay;
let conv: string;
let agent: McpSession;
let target: string;

let relays: PairedRelays;
before(async () => {
  relays = await pairedRelays({ conv: "Asker", target: "Build", mention: "@bbox" });
  ({ a, b, conv, agent, target } = relays);
});

after(() => relays?.stop());

test("this relay's Inbox lists and answers a question kept on the paired relay", async () => {
  const q = await agent.call({
    action: "ask",
    relay: "bbox",
    session: target,
    question: "Merge now?",
    options: ["Merge", "Wait"],
  });
  assert.equal(q.ok, true, JSON.stringify(q));
  const inbox = (await a.api("GET", "/api/inbox")).json.questions;
  const listed = inbox.find((x: any) => x.id === q.question_id);
  assert.equal(listed.relay, "bbox");
  assert.equal(listed.askedBy, conv);
  assert.equal(listed.question, "Merge now?");

  const n = (await eventTexts(a, conv)).length;
  const r = await a.api("POST", `/api/questions/${q.question_id}`, { choice: "Merge" });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.equal(r.json.status, "answered");
  assert.equal(r.json.via, "desk", "answered on the asker's relay");
  const held = (await b.api("GET", "/api/inbox")).json.questions;
  assert.ok(!held.some((x: any) => x.id === q.question_id), "no longer pending there");
  const texts = await a.waitFor(async () => {
    const t = await eventTexts(a, conv);
    return t.length > n ? t : undefined;
  });
  assert.match(texts[texts.length - 1], /question_answered/);
  assert.match(texts[texts.length - 1], /"via":"desk"/);
});
