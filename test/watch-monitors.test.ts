// Events no single change says (seed §9): stalled after stalledMinutes without progress,
// all_idle when every watched session stopped working, heartbeats every heartbeatMinutes;
// and exclude applies to all three.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay, type McpSession } from "./helpers/relay-process.ts";
import { FIRST, SLOW, eventMessages, idle, toolInTurn, waitEvents } from "./helpers/watch.ts";

let relay: TestRelay;
let watcher: string;
let mcp: McpSession;
const MIN = 60_000;

before(async () => {
  relay = await TestRelay.start();
  watcher = await relay.createSession({ title: "Desk" });
  mcp = await relay.mcp(watcher);
  const other = await relay.createSession({ title: "x" });
  await toolInTurn(relay, watcher, { action: "subscribe", sessions: [other], events: ["question_asked"] });
  await mcp.call({ action: "unsubscribe", subscription_id: "all" });
});
after(() => relay.stop());

const count = async () => (await eventMessages(relay, watcher)).length;
const start = async (id: string, text: string) => {
  await relay.api("POST", `/api/sessions/${id}/messages`, { text });
  await relay.waitFor(async () => (await relay.session(id)).state === "running_turn", SLOW);
};

test("stalled: a working session with no progress for stalledMinutes, once per stall", async () => {
  const c = await relay.createSession({ title: "Stuck" });
  const r = await mcp.call({ action: "subscribe", sessions: [c], events: ["stalled"], stalled_minutes: 5 });
  assert.equal(r.subscription.stalledMinutes, 5);
  const before = await count();
  await start(c, "/hang");
  await relay.advance(4 * MIN + 59_000);
  await relay.advance(30_000);
  assert.equal(await count(), before, "not yet stalled");
  await relay.advance(31_000);
  const all = await waitEvents(relay, watcher, before + 1);
  assert.equal(
    all[before],
    `${FIRST}\n[relay event] session "Stuck" (${c}): stalled: no progress for 5 min (turn running)`,
  );
  await relay.advance(20 * MIN);
  assert.equal(await count(), before + 1, "one event per stall");
  await relay.api("POST", `/api/sessions/${c}/stop`);
  await idle(relay, c);
  await mcp.call({ action: "unsubscribe", subscription_id: r.subscription.id });
});

test("all_idle: once when every watched session has stopped working", async () => {
  const c = await relay.createSession({ title: "Fast" });
  const d = await relay.createSession({ title: "Slow" });
  const r = await mcp.call({ action: "subscribe", sessions: [c, d], events: ["all_idle"] });
  const before = await count();
  await start(c, "/sleep 200\nfast");
  await start(d, "/sleep 2500\nslow");
  await idle(relay, c);
  await relay.advance(30_000);
  assert.equal(await count(), before, "one is still working");
  await idle(relay, d);
  await relay.advance(30_000);
  const all = await waitEvents(relay, watcher, before + 1);
  assert.equal(
    all[before],
    `${FIRST}\n[relay event] all_idle: no turn or task is running in the 2 watched sessions (subscription ${r.subscription.id})`,
  );
  await mcp.call({ action: "unsubscribe", subscription_id: r.subscription.id });
});

test("sessions all with exclude: excluded sessions count for nothing, all_idle and stalled included", async () => {
  const ex = await relay.createSession({ title: "Excluded" });
  const r = await mcp.call({
    action: "subscribe",
    sessions: ["all"],
    exclude: [ex],
    events: ["turn_end", "all_idle", "stalled"],
    stalled_minutes: 1,
  });
  assert.equal(r.ok, true, JSON.stringify(r));
  const before = await count();
  await start(ex, "/hang");
  await relay.advance(5 * MIN);
  assert.equal(await count(), before, "no stalled, no all_idle for an excluded session");
  await relay.api("POST", `/api/sessions/${ex}/stop`);
  await idle(relay, ex);
  await relay.advance(5 * MIN);
  assert.equal(await count(), before, "its turn_end is not seen either");
  await mcp.call({ action: "unsubscribe", subscription_id: r.subscription.id });
});

test("heartbeats every heartbeatMinutes list what works", async () => {
  const c = await relay.createSession({ title: "Beating" });
  const r = await mcp.call({ action: "subscribe", sessions: [c], events: ["question_asked"], heartbeat_minutes: 10 });
  const before = await count();
  await start(c, "/hang");
  await relay.advance(10 * MIN);
  await relay.advance(30_000);
  const all = await waitEvents(relay, watcher, before + 1);
  assert.equal(
    all[before],
    `${FIRST}\n[relay event] heartbeat: 1 watched session, 1 working: "Beating" (${c}) running_turn (subscription ${r.subscription.id})`,
  );
  await relay.api("POST", `/api/sessions/${c}/stop`);
  await idle(relay, c);
  await mcp.call({ action: "unsubscribe", subscription_id: r.subscription.id });
});
