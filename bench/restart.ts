// Restart time (issue 13): SIGKILL the relay with 1,000 sessions in its store and a few
// workers running turns, start it again on the same data folder, and time how long until it
// serves again: /api/health answers, and the owner's session list (the first page the web UI
// asks for) answers. Also checks that the turns the kill cut off ended as errors that say so.
import { TestRelay, realSleep } from "../test/helpers/relay-process.ts";
import { loadLine, machineLine, summarize } from "./lib/stats.ts";

const SESSIONS = 1000;
const RUNNING = 10;
const ROUNDS = 5;

const relay = await TestRelay.start({ testClock: false });
const t0 = Date.now();
const ids: string[] = [];
for (let i = 0; i < SESSIONS; i += 25) {
  ids.push(...(await Promise.all(Array.from({ length: Math.min(25, SESSIONS - i) }, (_, j) => relay.createSession({ title: `bench ${i + j}` })))));
}
console.log(`created ${ids.length} sessions in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

const health: number[] = [];
const listed: number[] = [];
let killedTurns = 0;
for (let round = 0; round < ROUNDS; round++) {
  // A few workers in the middle of a turn.
  const busy = ids.slice(round * RUNNING, (round + 1) * RUNNING);
  for (const id of busy) await relay.api("POST", `/api/sessions/${id}/messages`, { text: "/hang" });
  await relay.waitFor(async () => {
    const all = await Promise.all(busy.map((id) => relay.session(id)));
    return all.every((s) => s.state === "running_turn" && s.inFlight) ? true : undefined;
  }, 120_000).catch(() => undefined);
  await realSleep(300);

  const port = new URL(relay.url).port;
  await relay.kill();
  const killedAt = Date.now();
  // Same port, so the time is measured the way a client that reconnects sees it.
  await startOnPort(relay, Number(port));
  const upAt = Date.now();
  let r;
  do r = await relay.api("GET", "/api/sessions?limit=50");
  while (r.status !== 200);
  const listAt = Date.now();
  health.push(upAt - killedAt);
  listed.push(listAt - killedAt);
  for (const id of busy) {
    const s = await relay.session(id);
    const last = s.messages.at(-1);
    if (s.state === "idle" && last?.role === "agent" && /The relay stopped while this turn was running/.test(last.text)) killedTurns++;
  }
}

/** TestRelay.boot picks a new port; here the same one is taken again (freed by the kill). */
async function startOnPort(r: TestRelay, port: number): Promise<void> {
  const { spawn } = await import("node:child_process");
  const { fileURLToPath } = await import("node:url");
  const { join, resolve } = await import("node:path");
  const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
  r.proc = spawn(join(root, "bin", "oar"), ["start", "--port", String(port), "--data", r.dataDir, "--name", "desk"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
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
const h = summarize(health);
const l = summarize(listed);
console.log(machineLine());
console.log(loadLine());
console.log(`| measure (${ROUNDS} SIGKILLs, ${SESSIONS} sessions, ${RUNNING} workers in a turn) | p50 | max |`);
console.log("| --- | --- | --- |");
console.log(`| SIGKILL → /api/health answers | ${h.p50} ms | ${h.max} ms |`);
console.log(`| SIGKILL → first page of sessions answers | ${l.p50} ms | ${l.max} ms |`);
console.log(`killed turns ended as errors that say so: ${killedTurns} of ${ROUNDS * RUNNING}`);
if (killedTurns !== ROUNDS * RUNNING) process.exitCode = 1;
