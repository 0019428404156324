// The cap of 20 wake-ups per sliding hour (seed §9, contract §4.6 and §8): past it the rest
// come as a digest every 10 minutes, questions and errors still at once, and a
// subscription's own digest meeting it is named in the same Digest line.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay, type McpSession } from "./helpers/relay-process.ts";
import { FIRST, eventMessages, say, toolInTurn, waitEvents } from "./helpers/watch.ts";

let relay: TestRelay;
let watcher: string;
let a: string;
let b: string;
let mcp: McpSession;
const MIN = 60_000;

before(async () => {
  relay = await TestRelay.start();
  watcher = await relay.createSession({ title: "Desk" });
  a = await relay.createSession({ title: "Busy" });
  b = await relay.createSession({ title: "Digest" });
  mcp = await relay.mcp(watcher);
  await toolInTurn(relay, watcher, { action: "subscribe", sessions: [a], events: ["turn_end", "error"] });
});
after(() => relay.stop());

const count = async () => (await eventMessages(relay, watcher)).length;

test("20 wake-ups an hour, then a digest every 10 minutes; errors still at once", async () => {
  const t0 = Date.parse(await relay.advance(0));
  for (let i = 1; i <= 20; i++) {
    await say(relay, a, `turn ${i}`);
    await relay.advance(30_000);
    await waitEvents(relay, watcher, i);
  }
  assert.equal(await count(), 20);
  const sub2 = await mcp.call({ action: "subscribe", sessions: [b], events: ["turn_end"], digest_minutes: 5 });
  await say(relay, a, "turn 21");
  await relay.advance(30_000);
  await say(relay, a, "turn 22");
  await relay.advance(30_000);
  assert.equal(await count(), 20, "past the cap nothing wakes the watcher");

  await say(relay, a, "/error urgent anyway");
  let all = await waitEvents(relay, watcher, 21);
  assert.equal(all[20], `${FIRST}\n[relay event] session "Busy" (${a}): error "urgent anyway"`);

  // b's own 5-minute digest falls due while the cap holds: it joins the cap's digest.
  await say(relay, b, "digest meets cap");
  await relay.advance(9 * MIN);
  assert.equal(await count(), 21);
  await relay.advance(MIN);
  all = await waitEvents(relay, watcher, 22);
  assert.equal(
    all[21],
    [
      FIRST,
      `Digest of 3 events (subscription ${sub2.subscription.id} every 5 min; wake-up cap of 20 an hour reached; questions and errors come at once):`,
      `[relay event] session "Busy" (${a}): turn_end (done) "echo: turn 21"`,
      `[relay event] session "Busy" (${a}): turn_end (done) "echo: turn 22"`,
      `[relay event] session "Digest" (${b}): turn_end (done) "echo: digest meets cap"`,
    ].join("\n"),
  );

  // Still capped: the next one waits for the next 10-minute digest.
  await say(relay, a, "turn 23");
  await relay.advance(30_000);
  assert.equal(await count(), 22);
  await relay.advance(10 * MIN);
  all = await waitEvents(relay, watcher, 23);
  assert.equal(all[22], `${FIRST}\n[relay event] session "Busy" (${a}): turn_end (done) "echo: turn 23"`);

  // An hour after the first wake-ups the cap has slid past them.
  await relay.setClock(new Date(t0 + 70 * MIN).toISOString());
  await say(relay, a, "turn 24");
  await relay.advance(30_000);
  all = await waitEvents(relay, watcher, 24);
  assert.match(all[23], /"echo: turn 24"$/);
});
