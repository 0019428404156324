// Hardening of background tasks and the data folder (issue 13): Kill session ends the task
// processes (their process groups) before they show as killed; task output is kept within
// taskOutputMaxMb per task (the tail) and taskOutputTotalMb in all (oldest ended first), and
// deleted when its read window ends or its session is deleted; the data folder is 0700 and
// every file in it 0600, also on an install made before.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { TestRelay, realSleep } from "./helpers/relay-process.ts";

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start({ settings: { taskOutputMaxMb: 1, taskOutputTotalMb: 2 } });
});
after(() => relay.stop());

async function task(session: string, name: string, shell: string, opts: { running?: boolean } = {}): Promise<string> {
  const reply = await relay.say(session, `/task ${name} ${shell}`);
  const id = /^task: (\S+) started$/m.exec(reply.text)?.[1];
  assert.ok(id, reply.text);
  if (!opts.running)
    await relay.waitFor(
      async () => (await relay.session(session)).tasks.find((t: any) => t.taskId === id && t.status !== "running"),
      60_000,
    );
  return id!;
}

const logOf = (session: string, taskId: string) => join(relay.dataDir, "tasks", `${session}.${taskId}.log`);
const running = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie nobody reaps (no init in a container) is gone for our purpose.
  try {
    return !/\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

test("Kill session ends the session's background task processes; they show as killed only once gone", async () => {
  const s = await relay.createSession({ title: "Sleeper" });
  const pidFile = join(relay.dataDir, `pids-${s}`);
  const id = await task(
    s,
    "sleepers",
    `sleep 300 & echo $! >> ${pidFile}; sleep 300 & echo $! >> ${pidFile}; echo $$ >> ${pidFile}; wait`,
    { running: true },
  );
  const pids = await relay.waitFor(() => {
    const p = existsSync(pidFile) ? readFileSync(pidFile, "utf8").trim().split("\n").map(Number) : [];
    return p.length === 3 ? p : undefined;
  });
  assert.ok(pids.every(running), "the task's processes run");
  assert.equal((await relay.api("POST", `/api/sessions/${s}/kill`)).status, 200);
  const t = await relay.waitFor(
    async () => (await relay.session(s)).tasks.find((x: any) => x.taskId === id && x.status !== "running"),
    30_000,
  );
  assert.equal(t.status, "killed");
  assert.deepEqual(pids.filter(running), [], "no process of the task is left when it shows as killed");
});

test("task output keeps its tail within taskOutputMaxMb", async () => {
  const s = await relay.createSession({ title: "Noisy" });
  // ~3 MB of numbered lines, then END.
  const id = await task(s, "noisy", `seq 1 400000 | sed 's/$/ xxxxxxxx/'; echo END`);
  const size = statSync(logOf(s, id)).size;
  assert.ok(size <= 1024 * 1024, `kept ${size} bytes`);
  const text = readFileSync(logOf(s, id), "utf8");
  assert.match(text, /^\[… earlier output dropped: the relay keeps the last 1 MB of a task's output\]\n/);
  assert.match(text, /400000 xxxxxxxx\nEND\n$/, "the end is kept");
  const console = await relay.api("GET", `/api/sessions/${s}/tasks/${id}/output?lines=2`);
  assert.deepEqual(console.json.tail ?? console.json.lines, ["400000 xxxxxxxx", "END"]);
});

test("all output stays within taskOutputTotalMb: the task that ended first loses its output first", async () => {
  const s = await relay.createSession({ title: "Many" });
  const mb = (n: number) => `head -c ${Math.round(n * 1024 * 1024)} /dev/zero | tr '\\0' 'y' | fold -w 99`;
  // Earlier tests left ~1 MB; these push the folder past 2 MB.
  const first = await task(s, "first", mb(0.7));
  const second = await task(s, "second", mb(0.7));
  const third = await task(s, "third", mb(0.7));
  const dir = join(relay.dataDir, "tasks");
  const total = readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
  assert.ok(total <= 2 * 1024 * 1024, `total ${total}`);
  assert.ok(existsSync(logOf(s, third)), "the newest is kept");
  assert.ok(!existsSync(logOf(s, first)) || existsSync(logOf(s, second)), "oldest ended first");
});

test("task output is deleted after its one-hour read window, and with its session", async () => {
  const s = await relay.createSession({ title: "Short-lived" });
  const id = await task(s, "hello", "echo hello");
  assert.ok(existsSync(logOf(s, id)));
  await relay.advance(59 * 60_000);
  assert.ok(existsSync(logOf(s, id)), "still readable within the hour");
  await relay.advance(2 * 60_000);
  await relay.waitFor(() => !existsSync(logOf(s, id)));

  const d = await relay.createSession({ title: "Deleted" });
  const id2 = await task(d, "bye", "echo bye");
  assert.ok(existsSync(logOf(d, id2)));
  assert.equal((await relay.api("DELETE", `/api/sessions/${d}`)).status, 200);
  await relay.waitFor(() => !existsSync(logOf(d, id2)));
});

test("the data folder is 0700 and every file in it 0600, also on an existing install", async () => {
  const s = await relay.createSession({ title: "Modes" });
  const id = await task(s, "out", "echo out");
  const mode = (p: string) => statSync(p).mode & 0o777;
  const check = () => {
    assert.equal(mode(relay.dataDir), 0o700);
    assert.equal(mode(join(relay.dataDir, "tasks")), 0o700);
    for (const f of ["oar.db", "oar.db-wal", "oar.db-shm", "owner-token"])
      assert.equal(mode(join(relay.dataDir, f)), 0o600, f);
    for (const f of readdirSync(join(relay.dataDir, "tasks")))
      assert.equal(mode(join(relay.dataDir, "tasks", f)), 0o600, f);
  };
  check();
  assert.ok(existsSync(logOf(s, id)));
  // An install made before: everything readable by others. A restart closes it.
  await relay.kill();
  chmodSync(relay.dataDir, 0o755);
  chmodSync(join(relay.dataDir, "tasks"), 0o755);
  for (const f of ["oar.db", "owner-token"]) chmodSync(join(relay.dataDir, f), 0o644);
  for (const f of readdirSync(join(relay.dataDir, "tasks"))) chmodSync(join(relay.dataDir, "tasks", f), 0o644);
  await relay.boot();
  await realSleep(100);
  check();
});
