// Pairing, locking and levels across two real relays on loopback (issue 11; seed §5–§7,
// contract §3, §5.2, §5.6).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { TestRelay, type McpSession } from "./helpers/relay-process.ts";
import { pair, type PairedRelays, pairedRelays } from "./helpers/pairing.ts";

let a: TestRelay;
let b: TestRelay;
let conv: string;
let agent: McpSession;
let target: string;

let relays: PairedRelays;
before(async () => {
  relays = await pairedRelays({ conv: "Planner", target: "Build" });
  ({ a, b, conv, agent, target } = relays);
});

after(() => relays?.stop());

test("pairing: both sides list the pairing; tokens pair once; http only for loopback and private ranges", async () => {
  const onA = (await a.api("GET", "/api/relays")).json.relays;
  assert.equal(onA.length, 1);
  assert.equal(onA[0].name, "bbox");
  assert.equal(onA[0].direction, "outgoing");
  assert.equal(onA[0].agentsMay, "full");
  assert.equal(onA[0].version, "0.9.19");
  assert.ok(!JSON.stringify(onA).includes("oarc_"), "the credential never shows");
  const onB = (await b.api("GET", "/api/relays")).json.relays;
  assert.deepEqual(
    onB.map((r: any) => [r.name, r.direction, r.label]),
    [["desk", "incoming", "test"]],
  );

  const t = (await b.api("POST", "/api/pairing-tokens", {})).json.token;
  const used = await a.api("POST", "/api/relays", { name: "again", url: b.url, token: t });
  assert.equal(used.status, 201);
  const twice = await a.api("POST", "/api/relays", { name: "again2", url: b.url, token: t });
  assert.equal(twice.status, 401);
  assert.equal(twice.json.code, "REMOTE_RELAY_AUTH");
  await a.api("DELETE", "/api/relays/again");

  const plain = await a.api("POST", "/api/relays", { name: "far", url: "http://build.example.com", token: "x" });
  assert.equal(plain.status, 400);
  assert.equal(plain.json.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(plain.json.error, /https:\/\//);
  const priv = await a.api("POST", "/api/relays", { name: "lan", url: "http://192.168.1.20:1", token: "x" });
  assert.equal(priv.json.code, "REMOTE_RELAY_OFFLINE", "a private address may use http (it is then tried)");
});

test("locked until the owner mentions the relay; list_relays shows it", async () => {
  const listed = await agent.call({ action: "list_relays" });
  const bb = listed.relays.find((r: any) => r.name === "bbox");
  assert.deepEqual(
    { ...bb, version: bb.version },
    { name: "bbox", url: b.url, online: true, version: "0.9.19", permission: "full", unlocked: false },
  );
  const locked = await agent.call({ action: "list_sessions", relay: "bbox" });
  assert.equal(locked.code, "REMOTE_RELAY_LOCKED");
  assert.match(locked.error, /mention/);

  // A name inside a longer word is no mention; the name as a word is.
  await a.say(conv, "the bboxes are fine");
  assert.equal((await agent.call({ action: "list_sessions", relay: "bbox" })).code, "REMOTE_RELAY_LOCKED");
  await a.say(conv, "look at bbox please");
  const listedB = await agent.call({ action: "list_sessions", relay: "bbox" });
  assert.equal(listedB.ok, true, JSON.stringify(listedB));
  assert.equal(listedB.relay, "bbox");
  assert.ok(listedB.sessions.some((s: any) => s.id === target));
  assert.equal((await agent.call({ action: "list_relays" })).relays.find((r: any) => r.name === "bbox").unlocked, true);

  // Another conversation is still locked.
  const other = await a.createSession({ title: "Other" });
  const otherAgent = await a.mcp(other);
  assert.equal(
    (await otherAgent.call({ action: "read_session", relay: "bbox", session: target })).code,
    "REMOTE_RELAY_LOCKED",
  );
  // An IP host counts only with @.
  await a.say(other, "see 127.0.0.1");
  assert.equal(
    (await otherAgent.call({ action: "read_session", relay: "bbox", session: target })).code,
    "REMOTE_RELAY_LOCKED",
  );
  await a.say(other, "see @127.0.0.1");
  assert.equal((await otherAgent.call({ action: "read_session", relay: "bbox", session: target })).ok, true);
});

test("a remote send: the prompt line, from badge and role at the receiver; the reply comes back", async () => {
  const r = await agent.call({
    action: "send",
    relay: "bbox",
    session: target,
    text: "/reply deployed",
    wait_seconds: 30,
  });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.status, "done");
  assert.equal(r.relay, "bbox");
  assert.match(r.reply.text, /deployed/);
  assert.match(r.summary, /^send → bbox session /);
  const s = await b.session(target);
  const prompt = s.messages.find((m: any) => m.id === r.message_id);
  assert.equal(prompt.role, "remote");
  assert.deepEqual(prompt.from, { relay: "desk", session: conv, title: "Planner", model: "scripted-1" });
  assert.ok(
    prompt.text.startsWith(
      '[Remote prompt from an agent on relay "desk" · session "Planner" · scripted-1 · acting for the user]\n',
    ),
    prompt.text,
  );
});

test("levels: each level allows its actions and names the level needed", async () => {
  const set = (level: string) => a.api("PATCH", "/api/relays/bbox", { agentsMay: level });
  try {
    await set("read");
    assert.equal((await agent.call({ action: "read_session", relay: "bbox", session: target })).ok, true);
    const send = await agent.call({ action: "send", relay: "bbox", session: target, text: "hi", wait_seconds: 0 });
    assert.equal(send.code, "REMOTE_RELAY_PERMISSION");
    assert.match(send.error, /needs Agents may "Read and prompt"/);
    assert.equal(send.levelNeeded, "prompt");
    await set("prompt");
    const create = await agent.call({ action: "create_session", relay: "bbox", text: "hi" });
    assert.equal(create.code, "REMOTE_RELAY_PERMISSION");
    assert.match(create.error, /needs Agents may "Full"/);
    await set("off");
    const read = await agent.call({ action: "list_sessions", relay: "bbox" });
    assert.equal(read.code, "REMOTE_RELAY_PERMISSION");
    assert.match(read.error, /needs Agents may "Read"/);
    assert.equal(
      (await agent.call({ action: "list_relays" })).relays.find((r: any) => r.name === "bbox").permission,
      "off",
    );
    const bad = await a.api("PATCH", "/api/relays/bbox", { agentsMay: "most" });
    assert.equal(bad.json.code, "REMOTE_RELAY_INVALID_INPUT");
  } finally {
    await set("full");
  }
});

test("Accept prompts off on the other relay: writes and subscribe refused there, reads still work", async () => {
  await b.api("PATCH", "/api/settings", { acceptPromptsFromOtherRelays: false });
  try {
    const send = await agent.call({ action: "send", relay: "bbox", session: target, text: "hi", wait_seconds: 0 });
    assert.equal(send.code, "REMOTE_RELAY_PERMISSION");
    assert.match(send.error, /does not accept prompts from other relays' agents/);
    const sub = await agent.call({ action: "subscribe", relay: "bbox", sessions: [target] });
    assert.equal(sub.code, "REMOTE_RELAY_PERMISSION");
    assert.equal((await agent.call({ action: "read_session", relay: "bbox", session: target })).ok, true);
    const info = await agent.call({ action: "relay_info", relay: "bbox" });
    assert.equal(info.acceptsAgentPrompts, false);
  } finally {
    await b.api("PATCH", "/api/settings", { acceptPromptsFromOtherRelays: true });
  }
});

test("unknown relay names, schedules on a paired relay, agent sessions off here", async () => {
  const unknown = await agent.call({ action: "list_sessions", relay: "nowhere" });
  assert.equal(unknown.code, "REMOTE_RELAY_NOT_FOUND");
  assert.match(unknown.error, /paired with "bbox"/);
  const sched = await agent.call({ action: "schedule", relay: "bbox", at: "2030-01-01T00:00:00Z", text: "x" });
  assert.equal(sched.code, "REMOTE_RELAY_UNSUPPORTED");
  // The relay serving another relay's agent needs no agentSessions of its own; this one's
  // agents still reach a paired relay with agent sessions off here.
  await Promise.all([
    a.api("PATCH", "/api/settings", { agentSessions: false }),
    b.api("PATCH", "/api/settings", { agentSessions: false }),
  ]);
  try {
    assert.equal((await agent.call({ action: "list_sessions", relay: "this" })).code, "REMOTE_RELAY_DISABLED");
    assert.equal((await agent.call({ action: "list_sessions", relay: "bbox" })).ok, true);
  } finally {
    await Promise.all([
      a.api("PATCH", "/api/settings", { agentSessions: true }),
      b.api("PATCH", "/api/settings", { agentSessions: true }),
    ]);
  }
});

test("revoked on the other side: AUTH; unpaired here: NOT_FOUND", async () => {
  const c = await TestRelay.start({ name: "cbox" });
  try {
    await pair(a, c);
    await a.say(conv, "and cbox too");
    assert.equal((await agent.call({ action: "list_sessions", relay: "cbox" })).ok, true);
    assert.equal((await c.api("DELETE", "/api/relays/desk")).status, 200);
    const refused = await agent.call({ action: "list_sessions", relay: "cbox" });
    assert.equal(refused.code, "REMOTE_RELAY_AUTH");
    await a.api("DELETE", "/api/relays/cbox");
    assert.equal((await agent.call({ action: "list_sessions", relay: "cbox" })).code, "REMOTE_RELAY_NOT_FOUND");
  } finally {
    await c.stop();
  }
});

test("a relay that does not answer is OFFLINE after a bounded wait, and does not hold up others", async () => {
  const c = await TestRelay.start({ name: "dbox" });
  await pair(a, c);
  await a.say(conv, "dbox and bbox");
  await c.kill();
  const [off, here] = await Promise.all([
    agent.call({ action: "list_sessions", relay: "dbox" }),
    agent.call({ action: "list_sessions", relay: "bbox" }),
  ]);
  assert.equal(off.code, "REMOTE_RELAY_OFFLINE");
  assert.match(off.error, /not answering/);
  assert.equal(here.ok, true);
  assert.equal((await agent.call({ action: "list_relays" })).relays.find((r: any) => r.name === "dbox").online, false);
  await a.api("DELETE", "/api/relays/dbox");
  // (stop() after kill() would wait for an exit that already happened)
  rmSync(c.dataDir, { recursive: true, force: true });
});
