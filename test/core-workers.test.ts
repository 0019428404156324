// Workers (issue 2 "Agents as processes over ACP"): one agent process per session, started
// when needed, stopped when idle (relay clock), Kill session, a worker that dies by itself,
// and relay_tool offered only when enabled at the worker's start (seed §2, §4).
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestRelay, realSleep } from "./helpers/relay-process.ts";
import { toolResults, workerPids, UNTIL_AGENT_ENDS } from "./helpers/core-helpers.ts";

// A stubborn ACP agent installed as the `grok` CLI: it answers a prompt at once, except one
// saying "hang", which it never gives up, ignoring session/cancel.
const STUBBORN = `#!/usr/bin/env node
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize") send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, agentCapabilities: {}, authMethods: [] } });
  else if (m.method === "session/new") send({ id: m.id, result: { sessionId: "s1" } });
  else if (m.method === "session/prompt") {
    if (JSON.stringify(m.params.prompt).includes("hang")) return;
    send({ method: "session/update", params: { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "fresh" } } } });
    send({ id: m.id, result: { stopReason: "end_turn" } });
  }
});
process.stdin.on("end", () => process.exit(0));
`;

let relay: TestRelay;
before(async () => {
  const bin = mkdtempSync(join(tmpdir(), "oar-fake-cli-"));
  writeFileSync(join(bin, "grok"), STUBBORN);
  chmodSync(join(bin, "grok"), 0o755);
  process.env.PATH = `${bin}:${process.env.PATH}`;
  relay = await TestRelay.start({ name: "desk" });
  // The availability probe of the fake grok runs at start: let it end before counting processes.
  await relay.waitFor(
    async () => (await relay.api("GET", "/api/providers")).json.providers.find((p: any) => p.id === "grok").checkedAt,
  );
});
after(() => relay.stop());

const MIN = 60_000;
const lastAgent = async (id: string) =>
  (await relay.session(id)).messages.filter((m: any) => m.role === "agent").at(-1);

test("sessions cost no process until a turn needs one; an idle worker stops after the idle time", async () => {
  const w = await relay.createSession({ title: "Idler" });
  await relay.createSession({ title: "Never used" });
  assert.deepEqual(workerPids(relay), []);
  assert.equal((await relay.say(w, "hi")).text, "echo: hi");
  const [pid] = workerPids(relay);
  assert.ok(pid);
  await relay.advance(9 * MIN);
  await realSleep(500);
  assert.deepEqual(workerPids(relay), [pid], "still within the idle time");
  await relay.advance(2 * MIN);
  await relay.waitFor(() => workerPids(relay).length === 0);
  // The next turn starts a fresh worker.
  assert.equal((await relay.say(w, "back")).text, "echo: back");
  const [again] = workerPids(relay);
  assert.ok(again && again !== pid);
  // Archiving stops it at once.
  await relay.api("POST", `/api/sessions/${w}/archive`);
  await relay.waitFor(() => workerPids(relay).length === 0);
});

test("a worker with a running background task is not stopped for idleness", async () => {
  const s = await relay.createSession({ title: "Busy in background" });
  await relay.say(s, `/task watch ${UNTIL_AGENT_ENDS}`);
  const pids = workerPids(relay);
  assert.equal(pids.length, 1);
  await relay.advance(30 * MIN);
  await realSleep(500);
  assert.deepEqual(workerPids(relay), pids);
  assert.equal((await relay.session(s)).state, "background_only");
  // Kill session ends the worker; its task can no longer report and ends with it.
  await relay.api("POST", `/api/sessions/${s}/kill`);
  await relay.waitFor(() => workerPids(relay).length === 0);
  const after = await relay.waitFor(async () => {
    const x = await relay.session(s);
    return x.state === "idle" && x;
  });
  assert.equal(after.tasks[0].status, "killed");
});

test("Kill session ends the running turn as an error; the queued turn runs in a fresh worker", async () => {
  const k = await relay.createSession({ title: "Killable" });
  const hang = await relay.api("POST", `/api/sessions/${k}/messages`, { text: "/hang" });
  await relay.waitFor(async () => (await relay.session(k)).state === "running_turn" && workerPids(relay).length === 1);
  const [pid] = workerPids(relay);
  await relay.api("POST", `/api/sessions/${k}/messages`, { text: "next one" });
  const r = await relay.api("POST", `/api/sessions/${k}/kill`);
  assert.equal(r.status, 200);
  assert.equal(r.json.killed, true);
  const done = await relay.waitFor(async () => {
    const s = await relay.session(k);
    return s.state === "idle" && s;
  });
  const i = done.messages.findIndex((m: any) => m.id === hang.json.message_id);
  const ended = done.messages.slice(i + 1).find((m: any) => m.role === "agent");
  assert.match(ended.error, /killed the session's agent process/);
  assert.equal((await lastAgent(k)).text, "echo: next one");
  const pids = workerPids(relay);
  assert.equal(pids.length, 1);
  assert.notEqual(pids[0], pid);
  // Kill with nothing running is harmless.
  await relay.api("POST", `/api/sessions/${k}/kill`);
  assert.equal((await relay.say(k, "still here")).text, "echo: still here");
});

test("a worker that dies by itself ends its turn as an error; the session goes on", async () => {
  const d = await relay.createSession({ title: "Fragile" });
  const r = await relay.say(d, "/task boom kill -9 $PPID\n/hang");
  assert.match(r.error, /agent process exited/);
  assert.equal((await relay.session(d)).state, "idle");
  assert.equal((await relay.say(d, "alive")).text, "echo: alive");
  for (const s of (await relay.api("GET", "/api/sessions")).json.sessions)
    await relay.api("POST", `/api/sessions/${s.id}/kill`);
});

test("relay_tool is offered only when enabled when the worker starts; Kill session gives it the tool anew", async () => {
  await relay.api("PATCH", "/api/settings", { agentSessions: false });
  const s = await relay.createSession({ title: "Late" });
  const call = '/tool {"action":"list_relays"}';
  const [off] = toolResults(await relay.say(s, call));
  assert.equal(off.ok, false);
  assert.equal(off.code, "REMOTE_RELAY_DISABLED");
  await relay.api("PATCH", "/api/settings", { agentSessions: true });
  const [still] = toolResults(await relay.say(s, call));
  assert.equal(still.code, "REMOTE_RELAY_DISABLED", "a running worker keeps the tool list it started with");
  await relay.api("POST", `/api/sessions/${s}/kill`);
  const [on] = toolResults(await relay.say(s, call));
  assert.equal(on.ok, true, JSON.stringify(on));
  assert.equal(on.relays[0].self, true);
  // Switched off again, the tool stays offered to that worker, but the relay refuses.
  await relay.api("PATCH", "/api/settings", { agentSessions: false });
  const [refused] = toolResults(await relay.say(s, '/tool {"action":"list_sessions","relay":"this"}'));
  assert.equal(refused.code, "REMOTE_RELAY_DISABLED");
  assert.match(refused.error, /Agents may start and use sessions on this relay/);
  await relay.api("PATCH", "/api/settings", { agentSessions: true });
});

test("an agent that ignores a cancel is ended, the turn stops, and the next turn gets a fresh process", async () => {
  const g = await relay.createSession({ provider: "grok", title: "Stubborn" });
  const others = new Set(workerPids(relay));
  assert.equal((await relay.say(g, "hello")).text, "fresh");
  const pid = workerPids(relay).find((p) => !others.has(p));
  assert.ok(pid);
  const hang = await relay.api("POST", `/api/sessions/${g}/messages`, { text: "hang" });
  await relay.waitFor(async () => (await relay.session(g)).state === "running_turn");
  await relay.api("POST", `/api/sessions/${g}/messages`, { text: "after" });
  assert.equal((await relay.api("POST", `/api/sessions/${g}/stop`)).json.stopRequested, true);
  const s = await relay.waitFor(async () => {
    const x = await relay.session(g);
    return x.state === "idle" && x;
  });
  assert.equal(workerPids(relay).includes(pid), false, "the stubborn process was ended");
  const i = s.messages.findIndex((m: any) => m.id === hang.json.message_id);
  assert.equal(s.messages[i + 1].text, "after", "the stopped turn wrote nothing");
  assert.equal(s.messages.at(-1).text, "fresh");
  const w = await (await relay.mcp(await relay.createSession({ title: "Asker" }))).call({
    action: "wait",
    relay: "this",
    session: g,
    message_id: hang.json.message_id,
    wait_seconds: 0,
  });
  assert.equal(w.status, "stopped");
});
