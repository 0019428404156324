// The keeper's own life: the orphan bound (no relay for orphanMs → agents and keeper end),
// ending when no relay and no worker is left, SIGTERM ends the agents (their groups and
// their background tasks' groups), a stale socket file, the temp-dir socket for a data
// folder whose path is too long, lines on the socket that are not messages, and a keeper
// whose relay dies while it starts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestRelay } from "./helpers/relay-process.ts";
import { KeeperDir, Rpc, agentSpec, alive, keeperPidOf, until } from "./helpers/keeper-kit.ts";
import { socketPath } from "../src/providers/keeper/protocol.ts";

const sh = (script: string) => ({
  command: "sh",
  args: ["-c", script],
  env: { PATH: process.env.PATH! },
  cwd: process.cwd(),
});

test("orphan bound: with no relay attached for orphanMs the keeper ends its agents and itself", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const client = (await kd.connect({ orphanMs: 1500 }))!;
  const keeper = client.keeperPid;
  const agent = await client.spawn("ses_o", agentSpec());
  kd.track(agent.pid);
  const stubborn = await client.spawn("ses_t", sh("trap '' TERM; sleep 300 & wait; sleep 300"));
  kd.track(stubborn.pid);
  client.detach(); // the relay is gone and does not come back
  await until("agents and keeper gone", () => !alive(agent.pid) && !alive(stubborn.pid) && !alive(keeper));
  assert.equal(existsSync(socketPath(kd.dir)), false, "socket removed");
  assert.equal(keeperPidOf(kd.dir), null, "pid file removed");
});

test("a relay that returns within the bound keeps the agents; with no relay and no worker left the keeper ends", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const a = (await kd.connect({ orphanMs: 60_000 }))!;
  const keeper = a.keeperPid;
  const pipe = await a.spawn("ses_w", agentSpec());
  kd.track(pipe.pid);
  a.detach();
  const b = (await kd.connect({ start: false }))!;
  assert.equal(b.keeperPid, keeper);
  const p2 = b.attach("ses_w");
  p2.kill();
  await p2.exited;
  assert.ok(alive(keeper), "a relay is attached: the keeper stays with no worker");
  b.detach();
  await until("keeper ends with nothing to keep", () => !alive(keeper));
  assert.equal(await kd.connect({ start: false }), null, "no keeper answers any more");
});

test("SIGTERM to the keeper ends every agent's group and the groups of their background tasks", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const client = (await kd.connect())!;
  const keeper = client.keeperPid;
  const pipe = await client.spawn("ses_s", agentSpec());
  kd.track(pipe.pid);
  const rpc = new Rpc(pipe);
  const sid = await rpc.openSession();
  await rpc.prompt(sid, "/task bg sleep 300");
  const task = await until(
    "task pgid",
    () => rpc.seen.map((s) => s.msg).find((m) => m.method === "_oar/task" && m.params?.pgid)?.params.pgid as number,
  );
  kd.track(task);
  const group = await client.spawn("ses_g", sh('sleep 300 & echo "{\\"gc\\":$!}"; wait'));
  kd.track(group.pid);
  const lines: string[] = [];
  group.onLine((l) => lines.push(l));
  const gc = (await until("grandchild", () => lines.map((l) => JSON.parse(l).gc).find(Boolean))) as number;
  kd.track(gc);
  assert.ok(alive(task) && alive(gc));

  process.kill(keeper, "SIGTERM");
  await until("all gone", () => ![keeper, pipe.pid, task, group.pid, gc].some(alive));
  await client.closed;
  assert.equal((await pipe.exited).code, null, "the keeper going away ends the pipes");
  assert.equal(existsSync(socketPath(kd.dir)), false);
});

test("a stale socket file (its keeper was killed) is replaced by a new keeper", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const path = socketPath(kd.dir);
  // A listener that dies without cleaning up leaves the file behind.
  const stale = spawn(process.execPath, [
    "-e",
    `require("net").createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, "SIGKILL"))`,
  ]);
  await new Promise((r) => stale.once("exit", r));
  assert.ok(existsSync(path), "the stale socket file is there");
  assert.equal(await kd.connect({ start: false }), null, "nobody answers: no keeper, none started");
  const client = (await kd.connect({ start: true }))!;
  const pipe = await client.spawn("ses_1", agentSpec());
  kd.track(pipe.pid);
  const sid = await new Rpc(pipe).openSession();
  assert.ok(sid);
  client.detach();
});

test("a data folder whose path is too long for a unix socket gets its socket in the temp dir", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const deep = join(kd.dir, "a-rather-long-folder-name-".repeat(4), "data");
  mkdirSync(deep, { recursive: true });
  const path = socketPath(deep);
  assert.ok(!path.startsWith(deep) && /oar-keeper-[0-9a-f]{12}\.sock$/.test(path), path);
  const client = (await connectAt(deep, kd))!;
  assert.equal(statSync(path).mode & 0o777, 0o600);
  const pipe = await client.spawn("ses_l", agentSpec());
  kd.track(pipe.pid);
  assert.ok(await new Rpc(pipe).openSession());
  process.kill(client.keeperPid, "SIGTERM");
  await until("keeper gone", () => !alive(client.keeperPid) && !alive(pipe.pid));
  assert.equal(existsSync(path), false, "the temp-dir socket is removed too");
});

async function connectAt(dir: string, kd: KeeperDir) {
  const { KeeperClient } = await import("../src/providers/keeper/client.ts");
  const c = await KeeperClient.connect(dir, { start: true, orphanMs: 60_000 });
  if (c) kd.track(c.keeperPid);
  return c;
}

test("lines on the socket that are not messages never crash the keeper; a wrong protocol version is refused", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const client = (await kd.connect())!;
  const keeper = client.keeperPid;
  const pipe = await client.spawn("ses_b", agentSpec());
  kd.track(pipe.pid);
  client.detach();

  const junk = [
    "not json",
    "{}",
    "[1,2,3]",
    "null",
    '{"t":"spawn"}',
    '{"t":"spawn","id":1,"session":{},"command":["x"],"args":"y","env":[],"cwd":3}',
    '{"t":"in","id":"nobody","line":"x"}', // before hello: not the relay's connection
    '{"t":"hello","v":1}',
    '{"t":"kill","id":{"toString":1}}',
    "\u0000\u0001\u00ff garbage \ud800",
    "x".repeat(200_000),
  ];
  const raw = connect(socketPath(kd.dir));
  await new Promise((r) => raw.once("connect", r));
  raw.write(`${junk.join("\n")}\n`);
  // A greeted connection sending junk for real workers' ids and unknown ones.
  raw.write(`${JSON.stringify({ t: "hello", v: 1, relayPid: 1 })}\n`);
  raw.write(
    `${['{"t":"in","id":"ses_b~x","line":"{"}', '{"t":"setState","id":"ses_b","state":5}', '{"t":"attach"}', '{"t":"end","id":42}', "}{"].join("\n")}\n`,
  );
  await new Promise((r) => setTimeout(r, 300));
  raw.destroy();

  const bad = connect(socketPath(kd.dir));
  await new Promise((r) => bad.once("connect", r));
  bad.write(`${JSON.stringify({ t: "hello", v: 99, relayPid: 1 })}\n`);
  await new Promise((r) => bad.once("close", r));

  assert.ok(alive(keeper) && alive(pipe.pid));
  const b = (await kd.connect({ start: false }))!;
  assert.equal(b.keeperPid, keeper);
  const r = new Rpc(b.attach("ses_b"));
  assert.ok(await r.openSession(), "the worker still answers through the same keeper");
  b.detach();
});

/** A child process of `pid` whose command line names the keeper (0: none yet). */
function keeperChildOf(pid: number): number {
  try {
    for (const c of readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean)) {
      if (readFileSync(`/proc/${c}/cmdline`, "utf8").includes("keeper-main")) return Number(c);
    }
  } catch {}
  return 0;
}
const threads = (pid: number) => {
  try {
    return readdirSync(`/proc/${pid}/task`).length;
  } catch {
    return 0;
  }
};

/** Threads of a bare node process once it runs its script (a keeper from the sources has one
 * more once tsx's module loader thread runs). */
async function bareNodeThreads(): Promise<number> {
  const p = spawn(process.execPath, ["-e", 'process.stdout.write("up"); setTimeout(() => {}, 5000)'], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  await new Promise((r) => p.stdout!.once("data", r));
  await new Promise((r) => setTimeout(r, 200));
  const n = threads(p.pid!);
  p.kill("SIGKILL");
  return n;
}

test("a keeper started from the sources ends within its orphan bound when its relay dies during its start (its data folder removed meanwhile, or not)", async () => {
  const bare = await bareNodeThreads();
  for (const removed of [true, false]) {
    const dataDir = mkdtempSync(join(tmpdir(), "oar-keeper-start-"));
    const relay = await TestRelay.start({ dataDir, env: { OAR_FROM_SOURCE: "1", OAR_KEEPER_ORPHAN_MS: "2000" } });
    let keeper = 0;
    try {
      const s = await relay.createSession({});
      // The first turn starts the keeper.
      const posted = relay.api("POST", `/api/sessions/${s}/messages`, { text: "hi" }).catch(() => null);
      for (const end = Date.now() + 60_000; !(keeper = keeperChildOf(relay.proc.pid!)); ) {
        if (Date.now() > end) throw new Error("the relay did not start a keeper");
        await new Promise((r) => setImmediate(r));
      }
      // Killed while the keeper loads its modules (tsx's loader thread runs: a thread more than
      // a bare node has); the harness's stop() then removes the folder, as a test run does.
      for (const end = Date.now() + 30_000; alive(keeper) && threads(keeper) <= bare && Date.now() < end; )
        await new Promise((r) => setImmediate(r));
      relay.proc.kill("SIGKILL");
      if (removed) rmSync(dataDir, { recursive: true, force: true });
      await posted;
      // Bounded wait on the real clock (generous for a loaded machine): it ended, that is all.
      await until(`keeper ${keeper} ended (folder ${removed ? "removed" : "kept"})`, () => !alive(keeper), 90_000);
    } finally {
      if (keeper && alive(keeper)) process.kill(keeper, "SIGKILL");
      await relay.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
});
