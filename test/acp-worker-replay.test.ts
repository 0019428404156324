// A relay that takes back a kept worker gets the keeper's replay of the worker's last turn.
// Only a relay that resumes that turn may take it: when the turn was already recorded (the
// keeper still held its answer, the acknowledgement lost with the old relay), replayed text
// must not leak into the next turn's reply. Here AcpWorker reads from a pipe that plays the
// keeper's part (the real keeper and relay cover the resume path in reattach-restart and
// keeper-reconnect; this pins the rule at the worker, where the kill soak once saw the leak).
import { test } from "node:test";
import assert from "node:assert/strict";
import { AcpWorker, type WorkerHost } from "../src/providers/acp-worker.ts";
import type { AgentPipe, LineInfo } from "../src/providers/agent-pipe.ts";

function keptPipe() {
  let lineFn: (line: string, info: LineInfo) => void = () => {};
  let resultFn: (r: { result?: unknown }) => void = () => {};
  const pipe: AgentPipe = {
    id: "ses_x",
    pid: 1,
    write: () => {},
    onLine: (fn) => (lineFn = fn),
    onPromptResult: (fn) => (resultFn = fn),
    exited: new Promise(() => {}),
    stderrTail: () => "",
    setState: () => {},
    kill: () => {},
    end: () => {},
  };
  return {
    pipe,
    line: (l: string, info: LineInfo) => lineFn(l, info),
    result: (r: { result?: unknown }) => resultFn(r),
  };
}

const chunk = (text: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    method: "session/update",
    params: { sessionId: "acp_1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } },
  });

const state = {
  v: 1 as const,
  acpSessionId: "acp_1",
  advertised: { modes: null, models: null, configOptions: [] },
  applied: {},
  promptedOnce: true,
  mcpGiven: false,
  mcpUrl: null,
  costSoFar: null,
  turnId: "trn_old",
  runningModel: null,
};

async function run(takesReplay: boolean): Promise<string[]> {
  const seen: string[] = [];
  const host = {
    onChunk: (t: string) => seen.push(t),
    onTask: () => {},
    onTaskOutput: () => {},
    askUser: async () => ({}),
    onExit: () => {},
  } as unknown as WorkerHost;
  const k = keptPipe();
  const w = new AcpWorker(k.pipe, "/tmp", host, undefined, state);
  w.takesReplay = takesReplay;
  await new Promise((r) => setImmediate(r));
  k.line(chunk("R-123"), { replay: true, delivered: true });
  k.line(chunk("live"), { replay: false, delivered: false });
  await new Promise((r) => setTimeout(r, 50));
  return seen;
}

test("a kept worker's replayed turn reaches the relay only when it resumes that turn; live lines always do", async () => {
  assert.deepEqual(await run(true), ["R-123", "live"]);
  assert.deepEqual(await run(false), ["live"], "a turn this relay does not resume leaks nothing into the next one");
});
