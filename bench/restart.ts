// Restart time (issue 13): SIGKILL the relay with 1,000 sessions in its store and a few
// workers running turns, start it again on the same data folder, and time how long until it
// serves again: /api/health answers, and the owner's session list (the first page the web UI
// asks for) answers. Also checks that the turns the kill cut off were resumed on their
// surviving worker (the keeper) or ended as errors that say so; and times a running turn's
// reply across a restart against the same turn with no restart.
import { TestRelay, realSleep } from "../test/helpers/relay-process.ts";
import { loadLine, machineLine, summarize } from "./lib/stats.ts";

const SESSIONS = Number(process.env.OAR_BENCH_SESSIONS ?? 1000);
const RUNNING = 10;
const ROUNDS = Number(process.env.OAR_BENCH_ROUNDS ?? 5);

const relay = await TestRelay.start({ testClock: false });
const t0 = Date.now();
const ids: string[] = [];
for (let i = 0; i < SESSIONS; i += 25) {
  ids.push(
    ...(await Promise.all(
      Array.from({ length: Math.min(25, SESSIONS - i) }, (_, j) => relay.createSession({ title: `bench ${i + j}` })),
    )),
  );
}
console.log(`created ${ids.length} sessions in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

const health: number[] = [];
const listed: number[] = [];
let killedTurns = 0;
let resumedTurns = 0;
for (let round = 0; round < ROUNDS; round++) {
  // A few workers in the middle of a turn.
  const busy = ids.slice(round * RUNNING, (round + 1) * RUNNING);
  // "started" shows the prompt reached the agent (a turn is running_turn from before its
  // worker is up; one killed that early has nothing to resume and ends as an error).
  for (const id of busy) await relay.api("POST", `/api/sessions/${id}/messages`, { text: "/reply started\n/hang" });
  await relay
    .waitFor(async () => {
      const all = await Promise.all(busy.map((id) => relay.session(id)));
      return all.every((s) => s.state === "running_turn" && s.inFlight?.text.includes("started")) ? true : undefined;
    }, 120_000)
    .catch(() => undefined);
  await realSleep(300);

  const port = new URL(relay.url).port;
  await relay.kill();
  const killedAt = Date.now();
  // Same port, so the time is measured the way a client that reconnects sees it.
  await startOnPort(relay, Number(port));
  const upAt = Date.now();
  let r: Awaited<ReturnType<typeof relay.api>>;
  do r = await relay.api("GET", "/api/sessions?limit=50");
  while (r.status !== 200);
  const listAt = Date.now();
  health.push(upAt - killedAt);
  listed.push(listAt - killedAt);
  for (const id of busy) {
    const s = await relay.session(id);
    const last = s.messages.at(-1);
    // The keeper held the worker: the turn goes on (resumed); else it ended saying why.
    if (s.state === "running_turn") resumedTurns++;
    else if (
      s.state === "idle" &&
      last?.role === "agent" &&
      /The relay stopped while this turn was running/.test(last.text)
    )
      killedTurns++;
    // `/hang` never ends: free the worker so rounds do not pile workers up.
    await relay.api("POST", `/api/sessions/${id}/kill`);
  }
}

/** TestRelay.boot picks a new port; here the same one is taken again (freed by the kill). */
async function startOnPort(r: TestRelay, port: number): Promise<void> {
  const { spawn } = await import("node:child_process");
  const { fileURLToPath } = await import("node:url");
  const { join, resolve } = await import("node:path");
  const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
  r.proc = spawn(join(root, "bin", "oar"), ["start", "--port", String(port), "--data", r.dataDir, "--name", "desk"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  r.output = "";
  r.proc.stdout!.on("data", (d) => (r.output += d));
  r.proc.stderr!.on("data", (d) => (r.output += d));
  r.url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (r.proc.exitCode !== null) throw new Error(`relay exited: ${r.output.slice(-1000)}`);
    try {
      if ((await fetch(`${r.url}/api/health`)).ok) return;
    } catch {}
    await realSleep(20);
  }
}

await relay.stop();

// A running turn's reply across a restart (the keeper holds the worker): each round a
// scripted turn streams STREAM_CHUNKS chunks STREAM_MS apart; once a few are out the relay is
// SIGKILLed and started again on the same port. Timed: SIGKILL → the turn `done` with its
// whole reply readable, and send → done, against the same turn with no kill.
const TURN_ROUNDS = Number(process.env.OAR_BENCH_TURN_ROUNDS ?? 10);
const STREAM_CHUNKS = 10;
const STREAM_MS = 200;
const script = `/stream ${STREAM_CHUNKS} ${STREAM_MS}`;
const whole = Array.from({ length: STREAM_CHUNKS }, (_, i) => `chunk ${i + 1}`).join("\n");
const turnRelay = await TestRelay.start({ testClock: false });
const sid = await turnRelay.createSession({ title: "turn across restart" });
await turnRelay.say(sid, "/reply warm"); // the worker is up: rounds time turns, not spawns

/** Posts the script; resolves with the time it was accepted and its message id. */
async function post(): Promise<{ at: number; id: string }> {
  const r = await turnRelay.api("POST", `/api/sessions/${sid}/messages`, { text: script });
  if (r.status !== 201) throw new Error(`message refused: ${JSON.stringify(r.json)}`);
  return { at: Date.now(), id: r.json.message_id };
}
/** Polls until the turn after message `id` is done; its reply text. */
async function doneReply(id: string): Promise<string> {
  for (;;) {
    const s = await turnRelay.session(sid).catch(() => null);
    if (s && s.state !== "running_turn") {
      const i = s.messages.findIndex((m: any) => m.id === id);
      const reply = i >= 0 ? s.messages.slice(i + 1).find((m: any) => m.role === "agent") : undefined;
      if (reply) return reply.text as string;
    }
    await realSleep(10);
  }
}

const plain: number[] = [];
for (let round = 0; round < TURN_ROUNDS; round++) {
  const { at, id } = await post();
  if ((await doneReply(id)) !== whole) throw new Error("a turn without a restart lost its reply");
  plain.push(Date.now() - at);
}
const killToDone: number[] = [];
const sendToDone: number[] = [];
const killToServing: number[] = [];
let wholeReplies = 0;
for (let round = 0; round < TURN_ROUNDS; round++) {
  const { at, id } = await post();
  await turnRelay.waitFor(
    async () => ((await turnRelay.session(sid)).inFlight?.text ?? "").includes("chunk 3"),
    60_000,
  );
  const port = Number(new URL(turnRelay.url).port);
  await turnRelay.kill();
  const killedAt = Date.now();
  await startOnPort(turnRelay, port);
  killToServing.push(Date.now() - killedAt);
  const text = await doneReply(id);
  const doneAt = Date.now();
  if (text === whole) wholeReplies++;
  else console.error(`round ${round}: reply after the restart was ${JSON.stringify(text.slice(0, 200))}`);
  killToDone.push(doneAt - killedAt);
  sendToDone.push(doneAt - at);
}
await turnRelay.stop();

const h = summarize(health);
const l = summarize(listed);
console.log(machineLine());
console.log(loadLine());
console.log(`| measure (${ROUNDS} SIGKILLs, ${SESSIONS} sessions, ${RUNNING} workers in a turn) | p50 | max |`);
console.log("| --- | --- | --- |");
console.log(`| SIGKILL → /api/health answers | ${h.p50} ms | ${h.max} ms |`);
console.log(`| SIGKILL → first page of sessions answers | ${l.p50} ms | ${l.max} ms |`);
console.log("");
const pl = summarize(plain),
  sd = summarize(sendToDone),
  kd = summarize(killToDone),
  ks = summarize(killToServing);
console.log(
  `| a running turn across a SIGKILL (${TURN_ROUNDS} rounds, \`${script}\`, killed after chunk 3) | p50 | p99 |`,
);
console.log("| --- | --- | --- |");
console.log(`| turn with no restart: send → done | ${Math.round(pl.p50)} ms | ${Math.round(pl.p99)} ms |`);
console.log(`| turn with a SIGKILL mid-turn: send → done | ${Math.round(sd.p50)} ms | ${Math.round(sd.p99)} ms |`);
console.log(`| SIGKILL → relay serving again | ${Math.round(ks.p50)} ms | ${Math.round(ks.p99)} ms |`);
console.log(`| SIGKILL → the turn done, whole reply readable | ${Math.round(kd.p50)} ms | ${Math.round(kd.p99)} ms |`);
console.log(`whole reply after the restart: ${wholeReplies} of ${TURN_ROUNDS} turns`);
console.log(
  `turns cut by the kill: ${resumedTurns} resumed on their surviving worker, ${killedTurns} ended as errors that say so, of ${ROUNDS * RUNNING}`,
);
if (killedTurns + resumedTurns !== ROUNDS * RUNNING || wholeReplies !== TURN_ROUNDS) process.exitCode = 1;
