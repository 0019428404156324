// The keeper holds real agents for the relay: spawn through it, JSON-RPC lines both ways,
// the agent's own requests answered, kill of the agent's whole process group, end (stdin
// closed), a command that cannot start, and a second connect finding the same keeper.
import { test } from "node:test";
import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { KeeperDir, Rpc, agentSpec, alive, until } from "./helpers/keeper-kit.ts";
import { socketPath } from "../src/providers/keeper/protocol.ts";

test("a scripted agent spawned through the keeper answers a turn and asks; kill ends it", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const client = (await kd.connect())!;
  assert.ok(client.keeperPid > 0 && alive(client.keeperPid));
  assert.deepEqual(client.kept(), []);
  assert.equal(statSync(socketPath(kd.dir)).mode & 0o777, 0o600, "the socket is the owner's only");

  const pipe = await client.spawn("ses_a", agentSpec());
  kd.track(pipe.pid);
  assert.equal(pipe.id, "ses_a");
  assert.ok(pipe.pid > 0 && pipe.pid !== process.pid);
  const rpc = new Rpc(pipe, { onRequest: (m) => (m.method === "_oar/ask_user" ? { choice: "blue" } : undefined) });
  const sid = await rpc.openSession();
  const res = await rpc.prompt(sid, "/reply hello\n/ask_user colour?|red|blue");
  assert.deepEqual(res.result, { stopReason: "end_turn" });
  assert.equal(rpc.text(), "hello\nanswer: blue");
  assert.equal(
    rpc.requests[0]?.method,
    "_oar/ask_user",
    "the agent's own request reached the relay side and its answer went back",
  );

  pipe.kill();
  const exit = await pipe.exited;
  assert.equal(exit.signal, "SIGKILL");
  assert.equal(alive(pipe.pid), false);
  client.detach();
});

test("kill ends the agent's whole process group: a grandchild it started dies with it", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const client = (await kd.connect())!;
  // sh leads the group; sleep is its child in the same group.
  const pipe = await client.spawn("ses_g", {
    command: "sh",
    args: ["-c", 'sleep 300 & echo "{\\"grandchild\\":$!}"; wait'],
    env: { PATH: process.env.PATH! },
    cwd: process.cwd(),
  });
  kd.track(pipe.pid);
  const lines: string[] = [];
  pipe.onLine((l) => lines.push(l));
  const gc = (await until("grandchild pid", () => lines.map((l) => JSON.parse(l).grandchild).find(Boolean))) as number;
  kd.track(gc);
  assert.ok(alive(gc));
  pipe.kill();
  await pipe.exited;
  await until("grandchild gone", () => !alive(gc));
  client.detach();
});

test("end closes the agent's stdin and it ends on its own; a command that cannot start says why", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const client = (await kd.connect())!;
  const pipe = await client.spawn("ses_e", agentSpec());
  kd.track(pipe.pid);
  const rpc = new Rpc(pipe);
  await rpc.openSession();
  pipe.end();
  const exit = await pipe.exited;
  assert.equal(exit.code, 0, "the scripted agent exits 0 when its stdin closes");

  await assert.rejects(
    client.spawn("ses_x", { command: "/nonexistent/agent-cli", args: [], env: {}, cwd: process.cwd() }),
    /did not start: spawn \/nonexistent\/agent-cli ENOENT/,
  );
  client.detach();
});

test("a second client finds the running keeper; the first is replaced; stderr reaches the pipe", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const a = (await kd.connect())!;
  const pipe = await a.spawn("ses_s", {
    command: "sh",
    args: ["-c", "echo oops-on-stderr >&2; sleep 300"],
    env: { PATH: process.env.PATH! },
    cwd: process.cwd(),
  });
  kd.track(pipe.pid);
  await until("stderr", () => pipe.stderrTail().includes("oops-on-stderr"));
  pipe.setState({ acpSessionId: "abc", n: 1 });
  const b = (await kd.connect({ start: false }))!;
  assert.equal(b.keeperPid, a.keeperPid, "one keeper per data folder");
  await a.closed;
  const kept = b.kept();
  assert.equal(kept.length, 1);
  assert.deepEqual(kept[0], {
    id: "ses_s",
    pid: pipe.pid,
    alive: true,
    state: { acpSessionId: "abc", n: 1 },
    resumable: null,
  });
  const again = b.attach("ses_s");
  assert.equal(again.pid, pipe.pid);
  await until("stderr tail on attach", () => again.stderrTail().includes("oops-on-stderr"));
  again.kill();
  assert.equal((await again.exited).signal, "SIGKILL");
  const none = b.attach("ses_unknown");
  assert.deepEqual(await none.exited, { code: null, signal: null });
  b.detach();
});
