// The store survives SIGKILL (issue 2 "Store"): sessions, messages, turns, tasks and
// settings are all there after a restart; a turn running at the kill whose agent is gone
// too (its keeper ended: a reboot) ends as an error that says so; queued turns run after
// the restart. (Agents that ran on with the keeper: reattach-restart.test.ts.)
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay, endKeeper } from "./helpers/relay-process.ts";
import { agentToken, workerPids, UNTIL_AGENT_ENDS } from "./helpers/core-helpers.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start({ settings: { longestWaitMinutes: 7, quietAfterMinutes: 3 } });
});
after(() => relay.stop());

/** SIGKILL the relay and end its keeper (and so its agents), then start again. */
async function restartWithoutAgents(): Promise<void> {
  await relay.kill();
  await endKeeper(relay.dataDir);
  await relay.boot();
}

test("SIGKILL and start again: everything committed is there, the running turn ends as an error, the queued one runs", async () => {
  // A finished conversation with a background task whose output was captured.
  const done = await relay.createSession({ title: "finished", mode: "plan", effort: "high" });
  const first = await relay.say(done, "hello");
  assert.equal(first.text, "echo: hello");
  await relay.say(done, "/task build printf 'step one\\nstep two\\n'");
  const task = await relay.waitFor(async () =>
    (await relay.session(done)).tasks.find((t: any) => t.status === "completed"),
  );
  await relay.api("PATCH", `/api/sessions/${done}`, { mayCreateSessions: true, title: "finished (renamed)" });

  // A conversation with a turn running at the kill and one queued behind it.
  const busy = await relay.createSession({ title: "busy" });
  // Its prompt reached the agent (a turn whose prompt never went out would run again instead).
  const hang = await relay.api("POST", `/api/sessions/${busy}/messages`, { text: "/reply started\n/hang" });
  await relay.waitFor(
    async () => (await relay.session(busy)).inFlight?.text.includes("started") && workerPids(relay).length >= 2,
  );
  const queued = await relay.api("POST", `/api/sessions/${busy}/messages`, { text: "after the restart" });
  assert.equal(queued.status, 201);

  const tokenBefore = await agentToken(relay, done);
  const detailBefore = await relay.session(done);
  await restartWithoutAgents();

  // Settings, sessions and their fields.
  const settings = (await relay.api("GET", "/api/settings")).json;
  assert.equal(settings.agentSessions, true);
  assert.equal(settings.longestWaitMinutes, 7);
  assert.equal(settings.quietAfterMinutes, 3);
  const d = await relay.session(done);
  assert.equal(d.title, "finished (renamed)");
  assert.equal(d.mode, "plan");
  assert.equal(d.effort, "high");
  assert.equal(d.mayCreateSessions, true);
  assert.deepEqual(d.messages, detailBefore.messages);
  assert.equal(d.messageCount, detailBefore.messageCount);
  assert.equal(await agentToken(relay, done), tokenBefore);

  // The task and its output.
  const t = d.tasks.find((x: any) => x.taskId === task.taskId);
  assert.equal(t.status, "completed");
  assert.equal(t.description, "build");
  const out = await relay.api("GET", `/api/sessions/${done}/tasks/${task.taskId}/output`);
  assert.deepEqual(out.json.lines, ["step one", "step two"]);

  // The turn that was running ended as an error that says why, in the store and in `wait`.
  const b = await relay.session(busy);
  const hangIdx = b.messages.findIndex((m: any) => m.id === hang.json.message_id);
  const died = b.messages.slice(hangIdx + 1).find((m: any) => m.role === "agent");
  assert.match(died.error, /relay stopped while this turn was running/);
  const other = await relay.createSession({ title: "reader" });
  const mcp = await relay.mcp(other);
  const w = await mcp.call({
    action: "wait",
    relay: "this",
    session: busy,
    message_id: hang.json.message_id,
    wait_seconds: 0,
  });
  assert.equal(w.ok, true);
  assert.equal(w.status, "error");
  assert.match(w.error, /relay stopped while this turn was running/);

  // The queued turn ran after the restart, without anyone asking.
  const reply = await relay.waitFor(async () => {
    const s = await relay.session(busy);
    return (
      s.state === "idle" && s.messages.find((m: any) => m.role === "agent" && m.text === "echo: after the restart")
    );
  });
  assert.ok(reply);
  const w2 = await mcp.call({
    action: "wait",
    relay: "this",
    session: busy,
    message_id: queued.json.message_id,
    wait_seconds: 0,
  });
  assert.equal(w2.status, "done");
  assert.equal(w2.reply.text, "echo: after the restart");
});

test("a restart during a task marks it ended (its agent is gone) and the session idle", async () => {
  const s = await relay.createSession({ title: "tasker" });
  await relay.say(s, `/task long ${UNTIL_AGENT_ENDS}`);
  await relay.waitFor(async () => (await relay.session(s)).state === "background_only");
  await restartWithoutAgents();
  // Its process group is ended first (it may outlive the agent), then it shows killed.
  const after = await relay.waitFor(async () => {
    const x = await relay.session(s);
    return x.tasks[0].status !== "running" && x;
  });
  assert.equal(after.state, "idle");
  assert.equal(after.tasks[0].status, "killed");
  assert.ok(after.tasks[0].endedAt);
});

test("several kills in a row lose nothing that was acknowledged", async () => {
  const s = await relay.createSession({ title: "steady" });
  for (let i = 1; i <= 3; i++) {
    const r = await relay.api("POST", `/api/sessions/${s}/messages`, { text: `note ${i}` });
    assert.equal(r.status, 201);
    await relay.restart();
  }
  const final = await relay.waitFor(async () => {
    const x = await relay.session(s);
    return x.state === "idle" && x;
  });
  const users = final.messages.filter((m: any) => m.role === "user").map((m: any) => m.text);
  assert.deepEqual(users, ["note 1", "note 2", "note 3"]);
  // Each message got an answer: an echo, or an error saying the relay stopped during it.
  const agents = final.messages.filter((m: any) => m.role === "agent");
  assert.equal(agents.length, 3);
  for (const a of agents) assert.ok(/^echo: note \d$/.test(a.text) || /relay stopped/.test(a.error), JSON.stringify(a));
});
