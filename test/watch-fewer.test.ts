// Fewer wake-ups (seed §9): digest_minutes, quiet_hours in the zone's local time (across
// midnight and both DST changes of Europe/Berlin in 2026), once with them, heldCount and
// nextDeliveryAt.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay, type McpSession } from "./helpers/relay-process.ts";
import { FIRST, eventMessages, say, toolInTurn, waitEvents } from "./helpers/watch.ts";

let relay: TestRelay;
let watcher: string;
let a: string;
let mcp: McpSession;
const MIN = 60_000;

before(async () => {
  relay = await TestRelay.start();
  watcher = await relay.createSession({ title: "Desk" });
  a = await relay.createSession({ title: "Worker" });
  mcp = await relay.mcp(watcher);
  const first = await toolInTurn(relay, watcher, { action: "subscribe", sessions: [a], events: ["question_asked"] });
  assert.equal(first.result.ok, true);
  await mcp.call({ action: "unsubscribe", subscription_id: "all" });
});
after(() => relay.stop());

const count = async () => (await eventMessages(relay, watcher)).length;
const listed = async (id: string) =>
  (await mcp.call({ action: "list_subscriptions" })).subscriptions.find((s: any) => s.id === id);
const iso = (ms: number) => new Date(ms).toISOString();

test("digest_minutes: one message every N minutes with the Digest line; errors at once; one event reads as itself", async () => {
  const r = await mcp.call({ action: "subscribe", sessions: [a], events: ["turn_end", "error"], digest_minutes: 30 });
  const sub = r.subscription.id;
  const t0 = Date.parse(r.subscription.createdAt);
  const before = await count();
  await say(relay, a, "first");
  await say(relay, a, "second");
  let l = await listed(sub);
  assert.equal(l.heldCount, 2);
  assert.equal(l.nextDeliveryAt, iso(t0 + 30 * MIN));

  await say(relay, a, "/error broken");
  let all = await waitEvents(relay, watcher, before + 1);
  assert.match(all[before], /: error "broken"$/, "errors are never held");

  await relay.setClock(iso(t0 + 30 * MIN - 1000));
  assert.equal(await count(), before + 1);
  await relay.advance(1000);
  all = await waitEvents(relay, watcher, before + 2);
  assert.equal(
    all[before + 1],
    [
      FIRST,
      `Digest of 2 events (subscription ${sub} every 30 min; questions and errors come at once):`,
      `[relay event] session "Worker" (${a}): turn_end (done) "echo: first"`,
      `[relay event] session "Worker" (${a}): turn_end (done) "echo: second"`,
    ].join("\n"),
  );
  l = await listed(sub);
  assert.equal(l.heldCount, 0);
  assert.equal(l.nextDeliveryAt, null);

  // The next one N minutes after the previous; a digest of one event reads as that event.
  await say(relay, a, "third");
  assert.equal((await listed(sub)).nextDeliveryAt, iso(t0 + 60 * MIN));
  await relay.setClock(iso(t0 + 60 * MIN));
  all = await waitEvents(relay, watcher, before + 3);
  assert.equal(all[before + 2], `${FIRST}\n[relay event] session "Worker" (${a}): turn_end (done) "echo: third"`);
  await mcp.call({ action: "unsubscribe", subscription_id: sub });
});

test("once obeys digest_minutes: the subscription ends at once, its event comes when the digest allows", async () => {
  const r = await mcp.call({
    action: "subscribe",
    sessions: [a],
    events: ["turn_end"],
    digest_minutes: 15,
    once: true,
  });
  const t0 = Date.parse(r.subscription.createdAt);
  const before = await count();
  await say(relay, a, "only this one");
  await say(relay, a, "not this one");
  const l = await listed(r.subscription.id);
  assert.equal(l.active, false);
  assert.equal(l.endReason, "once");
  assert.equal(l.heldCount, 1, "an ended subscription says what it still holds");
  assert.equal(l.nextDeliveryAt, iso(t0 + 15 * MIN));
  await relay.setClock(iso(t0 + 15 * MIN));
  const all = await waitEvents(relay, watcher, before + 1);
  assert.equal(all.length, before + 1);
  assert.match(all[before], /"echo: only this one"$/);
  const after = await listed(r.subscription.id);
  assert.equal("heldCount" in after, false);
});

test("quiet_hours across midnight: held, no heartbeats inside, one message with the held line at the end", async () => {
  await relay.setClock("2026-06-10T20:30:00.000Z"); // 22:30 in Berlin (CEST)
  const r = await mcp.call({
    action: "subscribe",
    sessions: [a],
    events: ["turn_end", "error"],
    heartbeat_minutes: 60,
    quiet_hours: { from: "23:00", to: "06:00", tz: "Europe/Berlin" },
  });
  assert.equal(r.ok, true, JSON.stringify(r));
  const before = await count();
  await relay.setClock("2026-06-10T21:10:00.000Z"); // 23:10
  for (const t of ["one", "two", "three"]) await say(relay, a, t);
  const l = await listed(r.subscription.id);
  assert.equal(l.heldCount, 3);
  assert.equal(l.nextDeliveryAt, "2026-06-11T04:00:00.000Z");
  await say(relay, a, "/error at night");
  let all = await waitEvents(relay, watcher, before + 1);
  assert.match(all[before], /error "at night"$/);

  await relay.setClock("2026-06-11T03:59:59.000Z"); // 05:59:59, heartbeats at 23:30 … 05:30 fell inside
  assert.equal(await count(), before + 1);
  await relay.advance(1000);
  all = await waitEvents(relay, watcher, before + 2);
  assert.equal(
    all[before + 1],
    [
      FIRST,
      "Held during quiet hours (23:00\u201306:00 Europe/Berlin): 3 events, delivered now that the window has ended; questions and errors came at once.",
      ...["one", "two", "three"].map((t) => `[relay event] session "Worker" (${a}): turn_end (done) "echo: ${t}"`),
    ].join("\n"),
  );
  // Outside the window the heartbeat comes again.
  await relay.setClock("2026-06-11T04:30:30.000Z");
  all = await waitEvents(relay, watcher, before + 3);
  assert.match(
    all[before + 2],
    new RegExp(
      `^${FIRST.replace(/[[\]·.]/g, "\\$&")}\\n\\[relay event\\] heartbeat: 1 watched session, 0 working \\(subscription ${r.subscription.id}\\)$`,
    ),
  );
  assert.equal(all.filter((m) => m.includes("heartbeat")).length, 1);
  await mcp.call({ action: "unsubscribe", subscription_id: r.subscription.id });
});

test("once obeys quiet hours", async () => {
  await relay.setClock("2026-06-12T22:00:00.000Z"); // 00:00 in Berlin
  const r = await mcp.call({
    action: "subscribe",
    sessions: [a],
    events: ["turn_end"],
    once: true,
    quiet_hours: { from: "23:00", to: "06:00", tz: "Europe/Berlin" },
  });
  const before = await count();
  await say(relay, a, "in the night");
  assert.equal((await listed(r.subscription.id)).endReason, "once");
  await relay.setClock("2026-06-13T03:59:00.000Z");
  assert.equal(await count(), before);
  await relay.setClock("2026-06-13T04:00:00.000Z");
  const all = await waitEvents(relay, watcher, before + 1);
  assert.match(all[before], /Held during quiet hours \(23:00–06:00 Europe\/Berlin\): 1 event, delivered now/);
});

test("2026-03-29 Europe/Berlin: the clock jumps over `to`, the window ends at the jump", async () => {
  await relay.setClock("2026-03-29T00:10:00.000Z"); // 01:10 CET, inside 01:00–02:30
  const r = await mcp.call({
    action: "subscribe",
    sessions: [a],
    events: ["turn_end"],
    quiet_hours: { from: "01:00", to: "02:30", tz: "Europe/Berlin" },
  });
  const before = await count();
  await say(relay, a, "before the jump");
  assert.equal((await listed(r.subscription.id)).nextDeliveryAt, "2026-03-29T01:00:00.000Z");
  await relay.setClock("2026-03-29T00:59:59.000Z");
  assert.equal(await count(), before);
  await relay.advance(1000); // 02:00 CET becomes 03:00 CEST
  const all = await waitEvents(relay, watcher, before + 1);
  assert.match(all[before], /Held during quiet hours \(01:00–02:30 Europe\/Berlin\): 1 event/);
  await mcp.call({ action: "unsubscribe", subscription_id: r.subscription.id });
});

test("2026-10-25 Europe/Berlin: `to` occurs twice, the window ends at the first and is not entered again", async () => {
  await relay.setClock("2026-10-25T00:00:00.000Z"); // 02:00 CEST, inside 01:00–02:30
  const r = await mcp.call({
    action: "subscribe",
    sessions: [a],
    events: ["turn_end"],
    quiet_hours: { from: "01:00", to: "02:30", tz: "Europe/Berlin" },
  });
  const before = await count();
  await say(relay, a, "first pass");
  assert.equal((await listed(r.subscription.id)).nextDeliveryAt, "2026-10-25T00:30:00.000Z"); // 02:30 CEST
  await relay.setClock("2026-10-25T00:30:00.000Z");
  let all = await waitEvents(relay, watcher, before + 1);
  assert.match(all[before], /Held during quiet hours \(01:00–02:30 Europe\/Berlin\): 1 event/);
  // 02:10 CET, the repeated hour: outside the window, so only the gathering window holds it.
  await relay.setClock("2026-10-25T01:10:00.000Z");
  await say(relay, a, "second pass");
  assert.equal((await listed(r.subscription.id)).heldCount, 0);
  await relay.advance(30_000);
  all = await waitEvents(relay, watcher, before + 2);
  assert.equal(all[before + 1], `${FIRST}\n[relay event] session "Worker" (${a}): turn_end (done) "echo: second pass"`);
  await mcp.call({ action: "unsubscribe", subscription_id: r.subscription.id });
});
