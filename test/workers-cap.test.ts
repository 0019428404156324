// maxWorkers (contract §9.3, issue 18 item 12): never more agent processes than the cap —
// counting ones still starting and ones being stopped —; at the cap the idle worker unused
// longest is stopped to make room, and a turn waits only while every worker is busy.
// Counted from outside: the keeper's child processes, read from /proc at every sample.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestRelay, realSleep } from "./helpers/relay-process.ts";

const SLOW = 120_000;
const CAP = 3;
const SESSIONS = 12;
const MIN = 60_000;

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start({ settings: { maxWorkers: CAP } });
});
after(() => relay.stop());

/** The agent processes the data folder's keeper holds now (its children; none before it starts). */
function agents(): number {
  try {
    const keeper = Number(readFileSync(join(relay.dataDir, "keeper.pid"), "utf8").trim());
    return readFileSync(`/proc/${keeper}/task/${keeper}/children`, "utf8").trim().split(/\s+/).filter(Boolean).length;
  } catch {
    return 0;
  }
}

test(`${SESSIONS} sessions given /sleep at once run at most maxWorkers (${CAP}) agent processes; the others wait, then run`, async () => {
  const ids: string[] = [];
  for (let i = 0; i < SESSIONS; i++) ids.push(await relay.createSession({ title: `sleeper ${i}` }));
  const posted = await Promise.all(
    ids.map((id, i) => relay.api("POST", `/api/sessions/${id}/messages`, { text: `/sleep 300\n/reply slept ${i}` })),
  );
  for (const r of posted) assert.equal(r.status, 201, JSON.stringify(r.json));

  let most = 0;
  let samples = 0;
  const replies = new Map<number, string>();
  for (const end = Date.now() + SLOW; replies.size < SESSIONS; ) {
    if (Date.now() > end) throw new Error(`only ${replies.size} of ${SESSIONS} turns ended`);
    most = Math.max(most, agents());
    samples++;
    // Every few samples, which turns are done.
    if (samples % 10 === 0) {
      await Promise.all(
        ids.map(async (id, i) => {
          if (replies.has(i)) return;
          const s = await relay.session(id);
          const reply = s.messages.filter((m: any) => m.role === "agent").at(-1);
          if (s.state === "idle" && reply) replies.set(i, reply.text);
        }),
      );
    }
    await realSleep(5);
  }
  assert.ok(samples > 20, `sampled ${samples} times`);
  assert.ok(most <= CAP, `${most} agent processes at once with maxWorkers ${CAP}`);
  assert.equal(most, CAP, "the cap was reached (the turns did run side by side)");
  for (let i = 0; i < SESSIONS; i++) assert.equal(replies.get(i), `slept ${i}`);

  // After the turns: the idle workers stay (until their idle time), within the cap.
  for (let i = 0; i < 20; i++) {
    assert.ok(agents() <= CAP, `${agents()} agent processes after the turns`);
    await realSleep(25);
  }
  await relay.advance(11 * MIN);
  await relay.waitFor(() => agents() === 0, SLOW);
});

test("maxWorkers lowered while workers idle: the next turn stops idle ones until the cap holds", async () => {
  const ids: string[] = [];
  for (let i = 0; i < CAP; i++) ids.push(await relay.createSession({ title: `idler ${i}` }));
  for (const id of ids) assert.equal((await relay.say(id, "hi", SLOW)).text, "echo: hi");
  await relay.waitFor(() => agents() === CAP, SLOW);
  await relay.api("PATCH", "/api/settings", { maxWorkers: 1 });
  try {
    const pid = (await relay.say(ids[0], "/pid", SLOW)).text;
    assert.match(pid, /^pid \d+$/);
    await relay.waitFor(() => agents() === 1, SLOW);
    for (let i = 0; i < 20; i++) {
      assert.ok(agents() <= 1, `${agents()} agent processes with maxWorkers 1`);
      await realSleep(25);
    }
    // The one kept is the one used last.
    assert.equal((await relay.say(ids[0], "/pid", SLOW)).text, pid);
    // Another session's turn stops it (idle) to make room.
    assert.notEqual((await relay.say(ids[1], "/pid", SLOW)).text, pid);
    await relay.waitFor(() => agents() === 1, SLOW);
  } finally {
    await relay.api("PATCH", "/api/settings", { maxWorkers: CAP });
  }
});

test("a turn waiting for room because a background task holds the only worker runs once that task ends", async () => {
  const gate = join(mkdtempSync(join(tmpdir(), "oar-gate-")), "open");
  await relay.api("PATCH", "/api/settings", { maxWorkers: 1 });
  try {
    const holder = await relay.createSession({ title: "runs a task" });
    const waiter = await relay.createSession({ title: "waits for room" });
    const started = await relay.say(holder, `/task gate while [ ! -e ${gate} ]; do sleep 0.1; done`, SLOW);
    assert.match(started.text, /^task: \S+ started$/);
    await relay.waitFor(() => agents() === 1, SLOW);
    const msg = await relay.api("POST", `/api/sessions/${waiter}/messages`, { text: "/reply ran" });
    assert.equal(msg.status, 201);
    // Every worker is busy (its session runs a task): the turn waits, no process is added.
    for (let i = 0; i < 20; i++) {
      assert.ok(agents() <= 1, `${agents()} agent processes with maxWorkers 1`);
      assert.equal((await relay.session(waiter)).messages.filter((m: any) => m.role === "agent").length, 0);
      await realSleep(25);
    }
    writeFileSync(gate, "");
    const reply = await relay.waitFor(async () => {
      const s = await relay.session(waiter);
      return s.state === "idle" ? s.messages.filter((m: any) => m.role === "agent").at(-1) : undefined;
    }, SLOW);
    assert.equal(reply.text, "ran");
    assert.equal((await relay.session(holder)).tasks[0].status, "completed");
  } finally {
    await relay.api("PATCH", "/api/settings", { maxWorkers: CAP });
  }
});
