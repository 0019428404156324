// A relay connection goes away mid-turn and a new one takes the worker back (what a relay
// restart does): the keeper rewrites request ids so the new connection (starting at id 0
// again) gets its own answers while the old prompt's answer comes as promptResult; the
// turn log is replayed with delivered marks; the agent's unanswered question is asked
// again; lines sent while nobody listened are handed over on attach.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FAKE_ACP, KeeperDir, Rpc, agentSpec, alive, until } from "./helpers/keeper-kit.ts";

const chunks = (n: number) => Array.from({ length: n }, (_, i) => `chunk ${i + 1}`).join("\n");

test("a new connection's ids do not collide with the old prompt: its requests get their answers, the prompt's comes as promptResult after the replay", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const a = (await kd.connect())!;
  const pipe = await a.spawn("ses_r", agentSpec());
  kd.track(pipe.pid);
  const r1 = new Rpc(pipe);
  const sid = await r1.openSession(); // ids 0 and 1
  pipe.setState({ acpSessionId: sid });
  void r1.prompt(sid, "/stream 8 250"); // id 2, never answered to this connection
  await until("two chunks live", () => r1.text().includes("chunk 2"));
  a.detach(); // the relay goes away mid-turn

  const b = (await kd.connect({ start: false }))!;
  const [kept] = b.kept();
  assert.equal(kept!.id, "ses_r");
  assert.equal(kept!.pid, pipe.pid, "the same agent process");
  assert.deepEqual(kept!.state, { acpSessionId: sid });
  assert.deepEqual((kept!.resumable!.promptParams as any).prompt, [{ type: "text", text: "/stream 8 250" }]);

  const p2 = b.attach("ses_r");
  const r2 = new Rpc(p2, { firstId: 0 });
  // Ids 0, 1, 2 again, as a new ACP connection numbers them: each gets its own answer.
  for (const model of ["m-a", "m-b", "m-c"]) {
    const res = await r2.request("session/set_model", { sessionId: sid, modelId: model });
    assert.deepEqual(res.result, {}, `set_model ${model} answered as itself`);
  }
  await until("promptResult", () => r2.results.length === 1);
  assert.deepEqual(r2.results[0], { result: { stopReason: "end_turn" } });
  assert.ok(
    !r2.seen.some((s) => !s.msg.method && s.msg.id !== undefined && s.msg.result?.stopReason),
    "the old prompt's answer is not a line for the new connection",
  );

  // The whole reply: the replay from the start (delivered marks say what the first
  // connection had), then the live rest.
  assert.equal(r2.text(), chunks(8));
  await a.closed;
  assert.equal(
    r2.text((s) => s.replay && s.delivered),
    r1.text(),
    "delivered = what the old connection saw",
  );
  const firstLive = r2.seen.findIndex((s) => !s.replay);
  assert.ok(
    r2.seen.slice(firstLive).every((s) => !s.replay),
    "the replay comes first, in one piece",
  );

  // The worker goes on: a new prompt on the new connection is an ordinary answer.
  const next = await r2.prompt(sid, "/reply again");
  assert.deepEqual(next.result, { stopReason: "end_turn" });
  assert.equal(r2.results.length, 1);
  b.detach();
});

test("a prompt answered while no relay is attached is kept: the next attach replays the turn and hands the answer over", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const mark = join(kd.dir, "turn-done");
  const a = (await kd.connect())!;
  const pipe = await a.spawn("ses_k", agentSpec());
  kd.track(pipe.pid);
  const r1 = new Rpc(pipe);
  const sid = await r1.openSession();
  void r1.prompt(sid, `/stream 3 300\n/task mark touch ${mark}\n/reply the end`);
  await until("first chunk", () => r1.text().includes("chunk 1"));
  a.detach();
  // The script's last steps ran (the mark exists) with nobody attached.
  await until("turn done", () => existsSync(mark));
  await new Promise((r) => setTimeout(r, 300));

  const b = (await kd.connect({ start: false }))!;
  assert.ok(b.kept()[0]!.resumable, "a kept answer makes the worker resumable");
  const p2 = b.attach("ses_k");
  const r2 = new Rpc(p2);
  await until("promptResult", () => r2.results.length === 1);
  assert.deepEqual(r2.results[0], { result: { stopReason: "end_turn" } });
  const reply = r2.text((s) => s.replay);
  assert.match(reply, /^chunk 1\nchunk 2\nchunk 3\ntask: \S+ started\nthe end$/);
  await a.closed;
  assert.equal(
    r2.text((s) => s.replay && s.delivered),
    r1.text(),
    "delivered = what the old connection saw, the rest unmarked",
  );
  // The relay recorded the turn: its state no longer names one (the keeper may forget it).
  p2.setState({ acpSessionId: sid, turnId: null });
  b.detach();

  // A third connection: nothing outstanding, nothing replayed.
  const c = (await kd.connect({ start: false }))!;
  assert.equal(c.kept()[0]!.resumable, null);
  const r3 = new Rpc(c.attach("ses_k"), { firstId: 0 });
  const res = await r3.prompt(sid, "/reply fresh");
  assert.deepEqual(res.result, { stopReason: "end_turn" });
  assert.equal(r3.text(), "fresh", "no replay of the finished turn");
  c.detach();
});

test("the agent's question nobody answered is asked again after attach, and answering it finishes the turn", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const a = (await kd.connect())!;
  const pipe = await a.spawn("ses_q", agentSpec());
  kd.track(pipe.pid);
  const r1 = new Rpc(pipe); // does not answer requests
  const sid = await r1.openSession();
  void r1.prompt(sid, "/reply thinking\n/ask_user colour?|red|blue");
  const asked = await until("question", () => r1.requests.find((m) => m.method === "_oar/ask_user"));
  a.detach();

  const b = (await kd.connect({ start: false }))!;
  const r2 = new Rpc(b.attach("ses_q"), {
    onRequest: (m) => (m.method === "_oar/ask_user" ? { choice: "red" } : undefined),
  });
  await until("promptResult", () => r2.results.length === 1);
  assert.deepEqual(r2.results[0], { result: { stopReason: "end_turn" } });
  assert.equal(r2.requests.length, 1, "asked once more");
  assert.deepEqual(r2.requests[0], asked, "the same request, same id");
  assert.equal(r2.text(), "thinking\nanswer: red");
  b.detach();
});

test("lines an idle agent sends while no relay listens are buffered and handed over on attach, before later answers", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const go = join(kd.dir, "go");
  const sent = join(kd.dir, "sent");
  // A plain agent that speaks on its own once `go` exists (no turn running).
  const line = JSON.stringify({ jsonrpc: "2.0", method: "_oar/task_output", params: { taskId: "t1", chunk: "later" } });
  const script = `while [ ! -f ${go} ]; do sleep 0.05; done; echo '${line}'; echo '${line.replace("later", "later 2")}'; touch ${sent}; cat`;
  const a = (await kd.connect())!;
  const pipe = await a.spawn("ses_b", {
    command: "sh",
    args: ["-c", script],
    env: { PATH: process.env.PATH! },
    cwd: kd.dir,
  });
  kd.track(pipe.pid);
  a.detach();
  await a.closed; // the keeper has let go of the connection: from now on nobody listens
  writeFileSync(go, "");
  await until("agent spoke", () => existsSync(sent));
  await new Promise((r) => setTimeout(r, 200));

  const b = (await kd.connect({ start: false }))!;
  const p2 = b.attach("ses_b");
  const got: string[] = [];
  p2.onLine((l, info) => got.push(`${info.replay}:${l}`));
  // `cat` echoes what we write: it comes after the buffered lines.
  p2.write(JSON.stringify({ jsonrpc: "2.0", method: "ping" }));
  await until("echo", () => got.length === 3);
  assert.deepEqual(got, [
    `false:${line}`,
    `false:${line.replace("later", "later 2")}`,
    `false:${JSON.stringify({ jsonrpc: "2.0", method: "ping" })}`,
  ]);
  p2.kill();
  await p2.exited;
  b.detach();
});

test("a CLI-like agent's permission request left unanswered is asked again after attach (fake claude)", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const a = (await kd.connect())!;
  const pipe = await a.spawn("ses_p", agentSpec(FAKE_ACP, { FAKE_ACP_PROFILE: "claude" }));
  kd.track(pipe.pid);
  const r1 = new Rpc(pipe);
  const sid = await r1.openSession();
  void r1.prompt(sid, "/permission Run ls");
  const asked = await until("permission request", () =>
    r1.requests.find((m) => m.method === "session/request_permission"),
  );
  a.detach();

  const b = (await kd.connect({ start: false }))!;
  const r2 = new Rpc(b.attach("ses_p"), {
    onRequest: (m) =>
      m.method === "session/request_permission" ? { outcome: { outcome: "selected", optionId: "allow" } } : undefined,
  });
  await until("promptResult", () => r2.results.length === 1);
  assert.equal((r2.results[0]!.result as any).stopReason, "end_turn");
  assert.deepEqual(r2.requests, [asked]);
  const replayed = r2.seen.filter((s) => s.replay).map((s) => s.msg.params?.update?.sessionUpdate);
  assert.ok(replayed.includes("tool_call"), "the pending tool call is in the replay");
  assert.match(r2.text(), /permission: allow/);
  b.detach();
});

test("an agent that ends while no relay is attached is reported dead in welcome; attach gives its last lines, stderr and exit", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const go = join(kd.dir, "go");
  const last = JSON.stringify({
    jsonrpc: "2.0",
    method: "session/update",
    params: { update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "bye" } } },
  });
  const a = (await kd.connect())!;
  const pipe = await a.spawn("ses_c", {
    command: "sh",
    args: ["-c", `while [ ! -f ${go} ]; do sleep 0.05; done; echo '${last}'; echo "fatal: gone" >&2; exit 3`],
    env: { PATH: process.env.PATH! },
    cwd: kd.dir,
  });
  kd.track(pipe.pid);
  // A second worker keeps the keeper from ending when no relay and no live worker is left.
  const other = await a.spawn("ses_o", agentSpec());
  kd.track(other.pid);
  a.detach();
  await a.closed; // the keeper has let go of the connection: from now on nobody listens
  writeFileSync(go, "");
  await until("agent ended", () => !alive(pipe.pid));
  // The keeper notes the end once the agent's output is drained: ask until it says so.
  let b = (await kd.connect({ start: false }))!;
  while (b.kept().find((w) => w.id === "ses_c")!.alive) {
    b.detach();
    await new Promise((r) => setTimeout(r, 100));
    b = (await kd.connect({ start: false }))!;
  }
  assert.equal(b.kept().find((w) => w.id === "ses_o")!.alive, true);
  const p2 = b.attach("ses_c");
  const r2 = new Rpc(p2);
  assert.deepEqual(await p2.exited, { code: 3, signal: null });
  assert.equal(r2.text(), "bye", "lines before the end come first");
  assert.match(p2.stderrTail(), /fatal: gone/);
  b.detach();
});

test("a turn answered while detached by an agent that then ended is still resumable: replay, promptResult, then the exit", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const go = join(kd.dir, "go");
  const chunk = JSON.stringify({
    jsonrpc: "2.0",
    method: "session/update",
    params: { update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "all done" } } },
  });
  // The keeper numbers this worker's requests from 1: the prompt is its request 1.
  const answer = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { stopReason: "end_turn" } });
  const script = `read prompt; while [ ! -f ${go} ]; do sleep 0.05; done; echo '${chunk}'; echo '${answer}'; exit 0`;
  const a = (await kd.connect())!;
  const pipe = await a.spawn("ses_d", {
    command: "sh",
    args: ["-c", script],
    env: { PATH: process.env.PATH! },
    cwd: kd.dir,
  });
  kd.track(pipe.pid);
  const other = await a.spawn("ses_o", agentSpec()); // keeps the keeper from ending
  kd.track(other.pid);
  void new Rpc(pipe).prompt("s1", "work");
  a.detach();
  await a.closed;
  writeFileSync(go, "");
  await until("agent ended", () => !alive(pipe.pid));
  let b = (await kd.connect({ start: false }))!;
  while (b.kept().find((w) => w.id === "ses_d")!.alive) {
    b.detach();
    await new Promise((r) => setTimeout(r, 100));
    b = (await kd.connect({ start: false }))!;
  }
  assert.deepEqual((b.kept().find((w) => w.id === "ses_d")!.resumable!.promptParams as any).prompt, [
    { type: "text", text: "work" },
  ]);
  const p2 = b.attach("ses_d");
  const r2 = new Rpc(p2);
  assert.deepEqual(await p2.exited, { code: 0, signal: null });
  assert.deepEqual(r2.results, [{ result: { stopReason: "end_turn" } }], "the answer before the exit");
  assert.equal(
    r2.text((s) => s.replay && !s.delivered),
    "all done",
  );
  b.detach();
});

test("an answer delivered to a relay that died before recording the turn is handed to the next one; once a relay's state says recorded, it is forgotten", async (t) => {
  const kd = new KeeperDir();
  t.after(() => kd.close());
  const a = (await kd.connect())!;
  const pipe = await a.spawn("ses_ack", agentSpec());
  kd.track(pipe.pid);
  const r1 = new Rpc(pipe);
  const sid = await r1.openSession();
  pipe.setState({ acpSessionId: sid, turnId: "trn_1" });
  const answered = await r1.prompt(sid, "/stream 2 10\n/reply done");
  assert.deepEqual(answered.result, { stopReason: "end_turn" }, "the answer reached the first relay as its own line");
  // That relay dies before it writes the turn's end (no state saying so reaches the keeper).
  a.detach();
  await a.closed;

  const b = (await kd.connect({ start: false }))!;
  assert.ok(b.kept()[0]!.resumable, "a delivered but unrecorded answer keeps the worker resumable");
  const p2 = b.attach("ses_ack");
  const r2 = new Rpc(p2);
  await until("promptResult", () => r2.results.length === 1);
  assert.deepEqual(r2.results[0], { result: { stopReason: "end_turn" } });
  assert.equal(
    r2.text((s) => s.replay),
    "chunk 1\nchunk 2\ndone",
    "the whole reply again",
  );
  assert.ok(
    r2.seen.filter((s) => s.replay).every((s) => s.delivered),
    "all of it had been delivered",
  );
  // A state that still names the turn is no acknowledgement.
  p2.setState({ acpSessionId: sid, turnId: "trn_1" });
  b.detach();
  await b.closed;

  const c = (await kd.connect({ start: false }))!;
  assert.ok(c.kept()[0]!.resumable, "still kept: no relay recorded it yet");
  const p3 = c.attach("ses_ack");
  const r3 = new Rpc(p3);
  await until("promptResult again", () => r3.results.length === 1);
  p3.setState({ acpSessionId: sid, turnId: null });
  c.detach();
  await c.closed;

  const d = (await kd.connect({ start: false }))!;
  assert.equal(d.kept()[0]!.resumable, null, "recorded: nothing to hand over any more");
  const r4 = new Rpc(d.attach("ses_ack"), { firstId: 0 });
  const res = await r4.prompt(sid, "/reply fresh");
  assert.deepEqual(res.result, { stopReason: "end_turn" });
  assert.equal(r4.text(), "fresh", "no replay of the recorded turn");
  assert.equal(r4.results.length, 0);
  d.detach();
});
