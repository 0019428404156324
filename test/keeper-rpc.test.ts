// The keeper's JSON-RPC bookkeeping for one worker (worker-rpc.ts), on its own: rules the
// process tests cannot reach cheaply — the detached buffer's bound and what it drops first,
// cancel requests across the id rewriting, an agent withdrawing its own request, answers
// to nothing, lines that are not JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BUFFER_BYTES, WorkerRpc, type Outlet } from "../src/providers/keeper/worker-rpc.ts";
import type { KeeperMessage } from "../src/providers/keeper/protocol.ts";

function outlet(gen: number): Outlet & { got: KeeperMessage[] } {
  const got: KeeperMessage[] = [];
  return { gen, got, send: (m) => got.push(m) };
}
const lines = (o: { got: KeeperMessage[] }) => o.got.flatMap((m) => (m.t === "out" ? [m.line] : []));
const note = (method: string, params: object) => JSON.stringify({ jsonrpc: "2.0", method, params });

test("lines buffered while detached stay within the bound, task output dropped before anything else", () => {
  const rpc = new WorkerRpc("w1");
  const big = "x".repeat(64 * 1024);
  const updates: string[] = [];
  // Interleaved: each round one update (kept) and three task outputs (dropped first).
  for (let i = 0; i < 60; i++) {
    const u = note("session/update", { i, text: big });
    updates.push(u);
    rpc.fromAgent(u, null);
    for (let j = 0; j < 3; j++) rpc.fromAgent(note("_oar/task_output", { i, j, chunk: big }), null);
  }
  const o = outlet(2);
  rpc.attach(o);
  const got = lines(o);
  const bytes = got.reduce((n, l) => n + l.length, 0);
  assert.ok(bytes <= BUFFER_BYTES, `${bytes} bytes within ${BUFFER_BYTES}`);
  assert.deepEqual(
    got.filter((l) => l.includes("session/update")),
    updates,
    "every update kept, in order",
  );
  const outputs = got.filter((l) => l.includes("_oar/task_output"));
  assert.ok(outputs.length > 0 && outputs.length < 180, "some task output dropped, the newest kept");
  assert.match(outputs.at(-1)!, /"i":59,"j":2/);

  // Past the bound with updates alone, the oldest go.
  const rpc2 = new WorkerRpc("w2");
  for (let i = 0; i < 200; i++) rpc2.fromAgent(note("session/update", { i, text: big }), null);
  const o2 = outlet(2);
  rpc2.attach(o2);
  const kept = lines(o2);
  assert.ok(kept.length < 200 && JSON.parse(kept.at(-1)!).params.i === 199);
});

test("a relay's $/cancel_request names its own id: the keeper turns it into the agent's id, only for that connection", () => {
  const rpc = new WorkerRpc("w");
  const sent = rpc.fromRelay(
    JSON.stringify({ jsonrpc: "2.0", id: 0, method: "session/prompt", params: { sessionId: "s" } }),
    1,
  );
  const k = JSON.parse(sent).id;
  assert.notEqual(k, 0);
  const cancel = JSON.parse(rpc.fromRelay(note("$/cancel_request", { requestId: 0 }), 1));
  assert.equal(cancel.params.requestId, k);
  const other = JSON.parse(rpc.fromRelay(note("$/cancel_request", { requestId: 0 }), 2));
  assert.equal(other.params.requestId, 0, "another connection's id 0 is not that prompt");
});

test("an agent request the agent withdrew is not asked again; answers to nothing and non-JSON lines", () => {
  const rpc = new WorkerRpc("w");
  rpc.fromAgent(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "_oar/ask_user", params: { question: "q" } }), null);
  rpc.fromAgent(JSON.stringify({ jsonrpc: "2.0", id: 8, method: "session/request_permission", params: {} }), null);
  rpc.fromAgent(note("$/cancel_request", { requestId: 7 }), null);
  rpc.fromAgent(JSON.stringify({ jsonrpc: "2.0", id: 99, result: {} }), null); // answers nothing asked
  rpc.fromAgent("not json at all", null);
  const o = outlet(1);
  rpc.attach(o);
  const got = lines(o);
  assert.ok(!got.some((l) => l.includes('"id":7,')), "withdrawn request not re-sent");
  assert.ok(
    got.some((l) => l.includes('"id":8')),
    "open request re-sent",
  );
  assert.ok(got.includes("not json at all"), "a non-JSON line passes as it is");
  assert.ok(!got.some((l) => l.includes('"id":99')));
  assert.equal(rpc.fromRelay("garbage", 1), "garbage");
  // The relay answers request 8: it is not asked again on the next attach.
  rpc.fromRelay(JSON.stringify({ jsonrpc: "2.0", id: 8, result: { outcome: { outcome: "cancelled" } } }), 1);
  const o2 = outlet(2);
  rpc.attach(o2);
  assert.deepEqual(lines(o2), []);
});
