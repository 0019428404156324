// Resume on restart (contract §10.2 capabilities, issue 21): a worker the relay has to start
// again for a session (Kill session, a crash, a folder change, the relay and its keeper gone)
// continues the agent's own conversation through ACP `session/resume` or `session/load` when
// the agent offers one, and the session says how its agent last started (`agentStart`:
// new / resumed / fresh, docs/providers.md). The fake ACP agent on PATH as Claude keeps its
// conversations in files (FAKE_ACP_HISTORY) and sends them back on session/load, as ACP
// agents do; as Copilot it offers no load at all. The scripted agent loads any conversation.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestRelay, endKeeper, type McpSession } from "./helpers/relay-process.ts";
import { fakeCliDir } from "./helpers/fake-cli.ts";
import { keptPids } from "./helpers/acp-cli-suite.ts";
import { startUi, convTitle } from "./helpers/ui-kit.ts";

let relay: TestRelay;
let boss: McpSession;
const history = mkdtempSync(join(tmpdir(), "oar-fake-history-"));

before(async () => {
  const withLoad = fakeCliDir({ only: ["claude"], env: { FAKE_ACP_HISTORY: history } });
  const withoutLoad = fakeCliDir({ only: ["copilot"] });
  relay = await TestRelay.start({ env: { PATH: `${withLoad}:${withoutLoad}:${process.env.PATH}` } });
  await relay.waitFor(
    async () =>
      (await relay.api("GET", "/api/providers")).json.providers.filter(
        (p: any) => ["claude", "copilot"].includes(p.id) && p.checkedAt && !p.checking,
      ).length === 2,
    90_000,
  );
  boss = await relay.mcp(await relay.createSession({ title: "boss" }));
});
after(async () => {
  await relay.stop();
  rmSync(history, { recursive: true, force: true });
});

const create = async (body: Record<string, unknown>) => {
  const r = await relay.api("POST", "/api/sessions", { title: "t", ...body });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return r.json.id as string;
};
const agentStart = async (id: string) => (await relay.session(id)).agentStart;
const kill = async (id: string) =>
  assert.equal((await relay.api("POST", `/api/sessions/${id}/kill`)).json.killed, true);

test("Kill session: the next worker continues the agent's conversation through session/load; what the agent sends back reaches no reply; the session says resumed", async () => {
  const id = await create({ provider: "claude" });
  assert.equal(await agentStart(id), null, "no agent has started yet");
  assert.equal((await relay.say(id, "first words")).text, "echo: first words");
  assert.equal((await agentStart(id)).how, "new");
  const pid = (await relay.say(id, "/pid")).text;
  await kill(id);
  // The earlier turns come back from the agent during session/load: heard by nobody, so the
  // reply is this prompt's alone, and the agent knows the conversation it continued.
  const reply = await relay.say(id, "/history");
  assert.equal(reply.text, `history: ${JSON.stringify(["first words", "/pid"])}`);
  assert.notEqual((await relay.say(id, "/pid")).text, pid, "a new agent process");
  const s = await relay.session(id);
  assert.equal(s.agentStart.how, "resumed");
  assert.equal(s.agentStart.note, "continued through session/load");
  assert.ok(Date.parse(s.agentStart.at) > 0);
  // An agent reading the session sees it too.
  const read = await boss.call({ action: "read_session", relay: "this", session: id });
  assert.equal(read.session.agentStart.how, "resumed");
});

test("a crash, and the relay and its keeper gone: the record is in the store, and the conversation continues", async () => {
  const id = await create({ provider: "claude" });
  await relay.say(id, "before the crash");
  // A crash: the agent process ends on its own during a turn.
  const crashed = await relay.say(id, "/crash");
  assert.match(crashed.meta?.error ?? crashed.text, /exited/);
  assert.match((await relay.say(id, "/history")).text, /"before the crash"/);
  assert.equal((await agentStart(id)).how, "resumed");
  // Relay SIGKILLed and the keeper ended with every agent it held: nothing but the store is left.
  await relay.kill();
  await endKeeper(relay.dataDir);
  await relay.boot();
  assert.deepEqual(keptPids(relay), []);
  const after = await relay.say(id, "/history");
  assert.match(after.text, /"before the crash".*"\/history"/);
  assert.equal((await agentStart(id)).how, "resumed");
  boss = await relay.mcp((await relay.api("GET", "/api/sessions?query=boss")).json.sessions[0].id);
});

test("a folder change starts the worker again in the new folder, on the same conversation", async () => {
  const id = await create({ provider: "claude" });
  await relay.say(id, "in the first folder");
  const other = mkdtempSync(join(tmpdir(), "oar-resume-cwd-"));
  try {
    const patched = await relay.api("PATCH", `/api/sessions/${id}`, { cwd: other });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    assert.match((await relay.say(id, "/history")).text, /"in the first folder"/);
    assert.equal((await agentStart(id)).how, "resumed");
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});

test("an eviction at maxWorkers: the evicted session's next worker continues its conversation", async () => {
  const a = await create({ provider: "claude" });
  const b = await create({ provider: "claude" });
  assert.equal((await relay.api("PATCH", "/api/settings", { maxWorkers: 1 })).status, 200);
  try {
    await relay.say(a, "alpha");
    // b's turn needs the one place: a's idle worker is stopped to make room.
    await relay.say(b, "beta");
    assert.equal((await relay.say(a, "/history")).text, `history: ${JSON.stringify(["alpha"])}`);
    assert.equal((await agentStart(a)).how, "resumed");
  } finally {
    await relay.api("PATCH", "/api/settings", { maxWorkers: 8 });
  }
});

test("the agent no longer has the conversation (session/load refused): a blank one begins, and the session says fresh and why", async () => {
  const id = await create({ provider: "claude" });
  await relay.say(id, "soon forgotten");
  for (const f of readdirSync(history)) rmSync(join(history, f));
  mkdirSync(history, { recursive: true });
  await kill(id);
  assert.equal((await relay.say(id, "/history")).text, "history: []");
  const start = await agentStart(id);
  assert.equal(start.how, "fresh");
  assert.match(start.note, /^its agent did not continue the earlier conversation \(session\/load: .+\)$/);
  // The blank conversation is the one continued from now on.
  await kill(id);
  assert.equal((await relay.say(id, "/history")).text, `history: ${JSON.stringify(["/history"])}`);
  assert.equal((await agentStart(id)).how, "resumed");
});

test("an agent that offers neither session/resume nor session/load: fresh, saying so", async () => {
  const id = await create({ provider: "copilot" });
  await relay.say(id, "hello");
  assert.equal((await agentStart(id)).how, "new");
  await kill(id);
  assert.equal((await relay.say(id, "again")).text, "echo: again");
  const start = await agentStart(id);
  assert.equal(start.how, "fresh");
  assert.match(start.note, /offers neither ACP session\/resume nor session\/load/);
});

test("scripted: a killed worker's session continues on a new one, relay_tool reached", async () => {
  const id = await relay.createSession({ title: "scripted one" });
  assert.equal((await relay.say(id, "hi")).text, "echo: hi");
  await kill(id);
  const reply = await relay.say(id, '/tool {"action":"list_sessions","relay":"this"}');
  assert.match(reply.text, /^tool: \{"ok":true/);
  assert.deepEqual(await agentStart(id).then((a) => a.how), "resumed");
});

test("the page: a resumed session's title bar says resumed, a fresh one fresh start, each with why", async () => {
  const resumed = await relay.createSession({ title: "came back" });
  await relay.say(resumed, "hi");
  await kill(resumed);
  await relay.say(resumed, "again");
  const fresh = await create({ provider: "copilot", title: "started over" });
  await relay.say(fresh, "hi");
  await kill(fresh);
  await relay.say(fresh, "again");
  const ui = await startUi({ relayInstance: relay });
  try {
    await ui.open(`session=${resumed}`);
    await convTitle(ui.page, "came back").waitFor();
    assert.match(
      (await ui.page.locator(".conv-title-row .badge-resumed", { hasText: "resumed" }).getAttribute("title")) ?? "",
      /continued the conversation: continued through session\/load/,
    );
    await ui.open(`session=${fresh}`);
    await convTitle(ui.page, "started over").waitFor();
    assert.match(
      (await ui.page.locator(".conv-title-row .badge-fresh", { hasText: "fresh start" }).getAttribute("title")) ?? "",
      /blank conversation: .*offers neither ACP session\/resume nor session\/load/,
    );
  } finally {
    await ui.browser.close(); // the relay is the file's, stopped after it
  }
});
