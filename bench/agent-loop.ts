// Our own agent's loop (src/providers/openai-agent/, issue 10 "Bench"): the overhead per model
// round trip against a local server that answers at once (test/helpers/fake-openai.ts, real
// HTTP and SSE on loopback), with the real agent process driven over ACP as the relay drives it.
//   1. tool loop: the gap between two model requests of one turn while the model calls
//      read_file each step — stream parsing, the tool, its ACP tool_call updates, and building
//      and sending the next request (the fake server's own answer is included);
//   2. text turn: session/prompt → its answer, one streamed model reply, seen by the ACP client.
// Target: 300 ms at p50 and p99, well under one real model answer (hundreds of ms to seconds), so
// the loop never is what a person waits on. Bounded in time: a watchdog stops everything at 170 s.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { FakeOpenAI, toolResults } from "../test/helpers/fake-openai.ts";
import { startAgent } from "../test/helpers/openai-agent-drive.ts";
import { loadLine, machineLine, summarize, table, timeCalls, withinTarget, type Row } from "./lib/stats.ts";

const TURNS = 20;
const STEPS = 25;
const TEXT_TURNS = 300;
const DEADLINE_MS = 170_000;

const dir = mkdtempSync(join(tmpdir(), "oar-bench-agent-"));
writeFileSync(join(dir, "notes.txt"), "a small file\n".repeat(40));
const fake = await FakeOpenAI.start({ apiKey: null, models: ["bench-model"] });
const agent = startAgent("openai-compatible", { openaiCompatibleBaseUrl: fake.baseUrl });
const cleanup = async () => {
  agent.close();
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
};
const watchdog = setTimeout(() => {
  console.error(`agent-loop bench: over ${DEADLINE_MS / 1000} s, stopping`);
  void cleanup().finally(() => process.exit(1));
}, DEADLINE_MS);

try {
  // 1. Tool loop: the arrival time of every model request; each answer asks for one more read_file.
  let arrivals: number[] = [];
  fake.setScript((call) => {
    arrivals.push(performance.now());
    return toolResults(call).length < STEPS
      ? { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] }
      : { text: "done" };
  });
  const gaps: number[] = [];
  for (let t = 0; t < TURNS + 2; t++) {
    // A session per turn: every turn starts from the same short history.
    const s = await agent.newSession(dir);
    arrivals = [];
    await agent.prompt(s.sessionId, `turn ${t}`);
    if (t < 2) continue; // warm-up
    for (let i = 1; i < arrivals.length; i++) gaps.push(arrivals[i] - arrivals[i - 1]);
  }
  // 2. Text turns on a new session (short history).
  const s2 = await agent.newSession(dir);
  fake.setScript(() => ({ text: "a short answer of a few words" }));
  const turns = await timeCalls(TEXT_TURNS, 20, () => agent.prompt(s2.sessionId, "hi"), 60_000);

  const rows: Row[] = [
    {
      metric: "tool loop: model round trip (request to next request)",
      unit: "ms",
      summary: summarize(gaps),
      target: 300,
    },
    { metric: "text turn: session/prompt → answer", unit: "ms", summary: summarize(turns), target: 300 },
  ];
  console.log(table(rows));
  console.log(
    `\n${machineLine()}; ${loadLine()}; ${STEPS} read_file steps per turn, history of a turn grows to ~${Math.round(JSON.stringify(fake.calls.at(-1)?.messages ?? []).length / 1024)} KB`,
  );
  process.exitCode = rows.every(withinTarget) ? 0 : 1;
} finally {
  clearTimeout(watchdog);
  await cleanup();
}
