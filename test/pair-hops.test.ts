// Hops (contract §5.5) with three real relays, and older versions on the far side (§7).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { TestRelay, type McpSession } from "./helpers/relay-process.ts";
import { pair } from "./helpers/pairing.ts";
import { tool, toolResults } from "./helpers/control-helpers.ts";

let a: TestRelay;
let b: TestRelay;
let c: TestRelay;
let conv: string;
let agent: McpSession;
let onB: string;
let onC: string;

before(async () => {
  a = await TestRelay.start({ name: "desk" });
  b = await TestRelay.start({ name: "bbox" });
  c = await TestRelay.start({ name: "cbox" });
  await pair(a, b);
  await pair(b, c);
  await pair(a, c);
  conv = await a.createSession({ title: "Origin" });
  agent = await a.mcp(conv);
  onB = await b.createSession({ title: "Middle" });
  onC = await c.createSession({ title: "Far" });
  await a.say(conv, "use bbox");
  // The middle conversation's owner opened cbox there.
  await b.say(onB, "cbox is fine");
});

after(async () => {
  await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
});

test("a prompt that crossed two relays is refused at a third; reading is not; the owner's unlock in the origin lets it pass", async () => {
  const relayed = [
    tool({ action: "send", relay: "cbox", session: onC, text: "/reply reached", wait_seconds: 30 }),
    tool({ action: "read_session", relay: "cbox", session: onC }),
  ].join("\n");
  const r = await agent.call({ action: "send", relay: "bbox", session: onB, text: relayed, wait_seconds: 60 });
  assert.equal(r.status, "done", JSON.stringify(r));
  const [sent, read] = toolResults(r.reply);
  assert.equal(sent.code, "REMOTE_RELAY_HOP_LIMIT", JSON.stringify(sent));
  assert.match(sent.error, /crossed 2 relays \(desk → bbox\)/);
  assert.equal(read.ok, true, "reading is never limited by hops");

  // The middle turn's origin is kept with its turn.
  const middle = await b.session(onB);
  assert.ok(middle.messages.some((m: any) => m.role === "remote" && m.from?.relay === "desk"));

  // The owner unlocks cbox in the originating conversation: the chain may reach it.
  await a.say(conv, "and cbox too");
  const r2 = await agent.call({
    action: "send",
    relay: "bbox",
    session: onB,
    text: tool({ action: "send", relay: "cbox", session: onC, text: "/reply reached", wait_seconds: 30 }),
    wait_seconds: 60,
  });
  const [sent2] = toolResults(r2.reply);
  assert.equal(sent2.ok, true, JSON.stringify(sent2));
  assert.match(sent2.reply.text, /reached/);
  const far = await c.session(onC);
  const prompt = far.messages.find((m: any) => m.role === "remote");
  assert.match(prompt.text, /^\[Remote prompt from an agent on relay "bbox" · session "Middle"/);
});

test("an agent of a paired relay writing into a conversation unlocks that relay there", async () => {
  // b is paired with c; c's agent is not paired back, so use a and b: a's agent writes into b's
  // conversation onB; b is not paired with a, so nothing opens. Pair b → a and write again.
  await pair(b, a);
  await agent.call({ action: "send", relay: "bbox", session: onB, text: "/reply hi", wait_seconds: 30 });
  const bAgent = await b.mcp(onB);
  const listed = await bAgent.call({ action: "list_relays" });
  assert.equal(listed.relays.find((r: any) => r.name === "desk").unlocked, true, JSON.stringify(listed));
  assert.equal((await bAgent.call({ action: "read_session", relay: "desk", session: conv })).ok, true);
});

test("older relays on the far side: actions and options they lack are UNSUPPORTED; groups null with a note", async () => {
  const old12 = await TestRelay.start({ name: "old12", emulateVersion: "0.9.12" });
  const old15 = await TestRelay.start({ name: "old15", emulateVersion: "0.9.15" });
  try {
    await pair(a, old12);
    await pair(a, old15);
    await a.say(conv, "old12 and old15");
    const s12 = await old12.createSession({ title: "Old" });
    const s15 = await old15.createSession({ title: "Old" });
    const listed = await agent.call({ action: "list_relays" });
    assert.equal(listed.relays.find((r: any) => r.name === "old12").version, "0.9.12");

    const upd = await agent.call({ action: "update_session", relay: "old12", session: s12, effort: "low" });
    assert.equal(upd.code, "REMOTE_RELAY_UNSUPPORTED");
    assert.match(upd.error, /needs OAR 0\.9\.16 or newer; relay "old12" runs 0\.9\.12/);
    const info = await agent.call({ action: "relay_info", relay: "old12" });
    assert.equal(info.groups, null);
    assert.match(info.groupsNote, /cannot list session groups/);
    const grp = await agent.call({ action: "create_session", relay: "old12", group: "Release", text: "x" });
    assert.equal(grp.code, "REMOTE_RELAY_UNSUPPORTED");
    assert.match(grp.error, /doesn't support groups on create_session yet/);
    assert.equal(
      (await agent.call({ action: "read_task_output", relay: "old12", session: s12, task_id: "t1" })).code,
      "REMOTE_RELAY_NOT_FOUND",
    );

    const ask = await agent.call({ action: "ask", relay: "old15", session: s15, question: "ok?" });
    assert.equal(ask.code, "REMOTE_RELAY_UNSUPPORTED");
    const digest = await agent.call({ action: "subscribe", relay: "old15", sessions: [s15], digest_minutes: 30 });
    assert.equal(digest.code, "REMOTE_RELAY_UNSUPPORTED");
    const named = await agent.call({
      action: "subscribe",
      relay: "old12",
      sessions: [s12],
      events: ["subagent_finished"],
    });
    assert.equal(named.code, "REMOTE_RELAY_UNSUPPORTED", JSON.stringify(named));
  } finally {
    await Promise.all([old12.stop(), old15.stop()]);
  }
});
