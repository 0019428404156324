// read_task_output (seed §8.1) against real background tasks of the scripted agent: test
// counts of node:test, vitest, jest and pytest runs, [×N], truncated, stall on the relay
// clock, masked secrets, and output kept one hour after the task ends.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay } from "./helpers/relay-process.ts";
import { agentToken, UNTIL_AGENT_ENDS } from "./helpers/core-helpers.ts";

let relay: TestRelay;
let worker: string;
let mcp: Awaited<ReturnType<TestRelay["mcp"]>>;
before(async () => {
  relay = await TestRelay.start({ name: "desk", settings: { quietAfterMinutes: 10 } });
  worker = await relay.createSession({ title: "Builder" });
  const reader = await relay.createSession({ title: "Reader" });
  mcp = await relay.mcp(reader);
});
after(() => relay.stop());

/** Starts `/task NAME SHELL` in the worker session; waits until it ended unless `running`. */
async function task(name: string, shell: string, opts: { running?: boolean } = {}): Promise<string> {
  const reply = await relay.say(worker, `/task ${name} ${shell}`);
  const id = /^task: (\S+) started$/m.exec(reply.text)?.[1];
  assert.ok(id, reply.text);
  if (!opts.running)
    await relay.waitFor(async () =>
      (await relay.session(worker)).tasks.find((t: any) => t.taskId === id && t.status !== "running"),
    );
  return id;
}

const read = (task_id: string, extra: Record<string, unknown> = {}) =>
  mcp.call({ action: "read_task_output", relay: "this", session: worker, task_id, ...extra });

const lines = (...l: string[]) => `printf '%s\\n' ${l.map((x) => `'${x}'`).join(" ")}`;

test("counts: node:test's closing summary", async () => {
  const id = await task(
    "node-test",
    lines(
      "✔ adds (0.5ms)",
      "✖ fails (1.2ms)",
      "ℹ tests 6",
      "ℹ suites 0",
      "ℹ pass 4",
      "ℹ fail 1",
      "ℹ cancelled 0",
      "ℹ skipped 1",
      "ℹ todo 0",
      "ℹ duration_ms 45.1",
    ),
  );
  const r = await read(id);
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.deepEqual(r.counts, { runner: "node:test", passed: 4, failed: 1, skipped: 1, final: true });
  assert.equal(r.task.description, "node-test");
  assert.equal(r.task.type, "local_bash");
  assert.equal(r.task.status, "completed");
  assert.equal(r.task.exitCode, 0);
  assert.equal(r.stall, undefined, "stall is for running tasks");
  assert.match(r.summary, /4 passed, 1 failed/);
});

test("counts: vitest, jest and pytest summaries", async () => {
  const vitest = await task(
    "vitest",
    lines(
      " ✓ src/a.test.ts (3 tests) 5ms",
      " ❯ src/b.test.ts (3 tests | 1 failed) 7ms",
      " Test Files  1 failed | 1 passed (2)",
      "      Tests  1 failed | 4 passed | 1 skipped (6)",
      "   Duration  1.20s",
    ),
  );
  assert.deepEqual((await read(vitest)).counts, { runner: "vitest", passed: 4, failed: 1, skipped: 1, final: true });
  const jest = await task(
    "jest",
    lines(
      "PASS src/a.test.js",
      "FAIL src/b.test.js",
      "Test Suites: 1 failed, 1 passed, 2 total",
      "Tests:       2 failed, 1 skipped, 7 passed, 10 total",
      "Snapshots:   0 total",
      "Time:        1.234 s",
      "Ran all test suites.",
    ),
  );
  assert.deepEqual((await read(jest)).counts, { runner: "jest", passed: 7, failed: 2, skipped: 1, final: true });
  const pytest = await task(
    "pytest",
    lines(
      "============================= test session starts ==============================",
      "collected 6 items",
      "",
      "tests/test_api.py ..F.s.                                                 [100%]",
      "==================== 1 failed, 4 passed, 1 skipped in 0.12s ====================",
    ),
  );
  const p = await read(pytest);
  assert.deepEqual(p.counts, { runner: "pytest", passed: 4, failed: 1, skipped: 1, final: true });
  // read_session shows the same counts as the task's health, and that it has output.
  const rs = await mcp.call({ action: "read_session", relay: "this", session: worker, last: 1 });
  const t = rs.tasks.find((x: any) => x.taskId === pytest);
  assert.equal(t.output, true);
  assert.deepEqual(t.health.counts, p.counts);
});

test("tail: repeated lines read [×N]; `lines` picks the end and `truncated` says more came before", async () => {
  const id = await task("retries", `printf 'waiting for db\\n%.0s' 1 2 3 4 5; printf 'line %s\\n' 1 2 3 4 5 6 7 8`);
  const all = await read(id);
  assert.deepEqual(all.tail, [
    "waiting for db [×5]",
    "line 1",
    "line 2",
    "line 3",
    "line 4",
    "line 5",
    "line 6",
    "line 7",
    "line 8",
  ]);
  assert.equal(all.truncated, false);
  const end = await read(id, { lines: 3 });
  assert.deepEqual(end.tail, ["line 6", "line 7", "line 8"]);
  assert.equal(end.truncated, true);
});

test("secrets are masked: the session's own agent token, the owner token, and KEY=value lines", async () => {
  const token = await agentToken(relay, worker);
  const id = await task("leaky", lines(`auth ${token} ok`, "API_TOKEN=abcd1234efgh5678ijkl", `owner ${relay.token}`));
  const r = await read(id);
  const text = JSON.stringify(r);
  assert.ok(!text.includes(token), "agent token leaked");
  assert.ok(!text.includes(relay.token), "owner token leaked");
  assert.ok(!text.includes("abcd1234efgh5678ijkl"));
  assert.deepEqual(r.tail, ["auth **** ok", "API_TOKEN=****", "owner ****"]);
  const console = await relay.api("GET", `/api/sessions/${worker}/tasks/${id}/output`);
  assert.deepEqual(console.json.lines, r.tail);
});

test("a subagent has no console: status only, with a note", async () => {
  const reply = await relay.say(worker, "/subagent helper 600000");
  const id = /^subagent: (\S+) started$/m.exec(reply.text)![1];
  const r = await read(id);
  assert.equal(r.ok, true);
  assert.equal(r.task.type, "subagent");
  assert.equal(r.task.status, "running");
  assert.deepEqual(r.tail, []);
  assert.match(r.note, /no console output/);
});

test("stall: minutes since the last output on the relay clock, quiet against the quiet setting", async () => {
  const id = await task("quiet", `printf 'started\\n'; ${UNTIL_AGENT_ENDS}`, { running: true });
  await relay.waitFor(async () => (await read(id)).tail?.includes("started"));
  const fresh = await read(id);
  assert.equal(fresh.task.status, "running");
  assert.equal(fresh.stall.minutes, 0);
  assert.equal(fresh.stall.quiet, false);
  assert.equal(fresh.stall.quietAfterMinutes, 10);
  const listed = (await mcp.call({ action: "list_sessions", relay: "this" })).sessions.find(
    (s: any) => s.id === worker,
  );
  assert.equal(listed.state, "background_only");
  assert.ok(listed.tasks.some((t: any) => t.taskId === id));
  await relay.advance(15 * 60_000);
  const stale = await read(id);
  assert.equal(stale.stall.minutes, 15);
  assert.equal(stale.stall.quiet, true);
  assert.match(stale.summary, /last output 15 min ago/);
  const rs = await mcp.call({ action: "read_session", relay: "this", session: worker, last: 1 });
  const h = rs.tasks.find((t: any) => t.taskId === id).health;
  assert.equal(h.minutesSinceOutput, 15);
  assert.equal(h.quiet, true);
  assert.equal(h.quietAfterMinutes, 10);
});

test("output is kept an hour after the task ends, then NOT_FOUND; unknown task ids are NOT_FOUND", async () => {
  const id = await task("short", lines("all done"));
  await relay.advance(59 * 60_000);
  const kept = await read(id);
  assert.deepEqual(kept.tail, ["all done"]);
  await relay.advance(2 * 60_000);
  const gone = await read(id);
  assert.equal(gone.code, "REMOTE_RELAY_NOT_FOUND");
  assert.match(gone.error, /more than an hour ago/);
  const rs = await mcp.call({ action: "read_session", relay: "this", session: worker, last: 1 });
  assert.equal(
    rs.tasks.some((t: any) => t.taskId === id),
    false,
  );
  const none = await read("no-such-task");
  assert.equal(none.code, "REMOTE_RELAY_NOT_FOUND");
  const wrongSession = await mcp.call({
    action: "read_task_output",
    relay: "this",
    session: await relay.createSession(),
    task_id: id,
  });
  assert.equal(wrongSession.code, "REMOTE_RELAY_NOT_FOUND");
});
