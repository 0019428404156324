// subscribe / unsubscribe / list_subscriptions / transfer_subscriptions (seed §9): the
// card, every refusal (with the spec's words and nothing changed), the list with ended
// subscriptions, the owner's Unsubscribe and the list badges, and ending by archive.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { TestRelay, type McpSession } from "./helpers/relay-process.ts";
import { toolInTurn } from "./helpers/watch.ts";

let relay: TestRelay;
let watcher: string;
let a: string;
let b: string;
let mcp: McpSession;

before(async () => {
  relay = await TestRelay.start();
  watcher = await relay.createSession({ title: "Desk" });
  a = await relay.createSession({ title: "Review: server/" });
  b = await relay.createSession({ title: "Review: web/" });
  mcp = await relay.mcp(watcher);
});
after(() => relay.stop());

const mine = async () => (await mcp.call({ action: "list_subscriptions" })).subscriptions as any[];

test("the first subscribe asks once on a card that names the options; later ones do not", async () => {
  // Outside a turn there is nowhere to show the card.
  const early = await mcp.call({ action: "subscribe", sessions: [a] });
  assert.equal(early.code, "REMOTE_RELAY_NO_ACTIVE_TURN");
  assert.equal((await mine()).length, 0);

  const { result, cards } = await toolInTurn(relay, watcher, {
    action: "subscribe",
    sessions: ["all"],
    exclude: [b],
    digest_minutes: 30,
    quiet_hours: { from: "23:00", to: "06:00", tz: "Europe/Berlin" },
  });
  assert.equal(result.ok, true, JSON.stringify(result));
  assert.equal(cards.length, 1);
  assert.match(cards[0].text, /subscribe on relay "desk"/);
  for (const part of ["digest every 30 min", "quiet 23:00\u201306:00 Europe/Berlin", "except 1 it leaves out"])
    assert.ok(cards[0].text.includes(part), `${part} in ${cards[0].text}`);
  assert.match(result.summary, /^subscribe → desk: all sessions except 1 \(sub_[a-z0-9]+\)$/);
  assert.equal(result.subscription.sessions, "all");
  assert.deepEqual(result.subscription.exclude, [b]);

  // Second time: no card, straight over MCP.
  const r = await mcp.call({ action: "subscribe", sessions: [a, b], events: ["question_asked", "error", "all_idle"] });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.match(r.summary, /^subscribe → desk: 2 sessions \(sub_[a-z0-9]+\)$/);
  assert.deepEqual(r.subscription.sessions, [
    { id: a, title: "Review: server/" },
    { id: b, title: "Review: web/" },
  ]);
  assert.deepEqual(r.subscription.events, ["question_asked", "error", "all_idle"]);
  assert.equal(r.subscription.once, false);
  assert.equal(r.subscription.stalledMinutes, 15);
  assert.equal((await relay.api("GET", `/api/cards?session=${watcher}`)).json.cards.length, 0);
});

test("default events, stalledMinutes and heartbeatMinutes, match and once are kept and listed", async () => {
  const r = await mcp.call({
    action: "subscribe",
    sessions: [a],
    once: true,
    match: "deploy",
    stalled_minutes: 5,
    heartbeat_minutes: 60,
  });
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.deepEqual(r.subscription.events, [
    "question_asked",
    "error",
    "turn_end",
    "subagent_finished",
    "task_failed",
    "stalled",
    "all_idle",
    "overlap",
  ]);
  const listed = (await mine()).find((s) => s.id === r.subscription.id);
  assert.equal(listed.once, true);
  assert.equal(listed.match, "deploy");
  assert.equal(listed.stalledMinutes, 5);
  assert.equal(listed.heartbeatMinutes, 60);
  assert.equal(listed.heldCount, 0);
  assert.equal(listed.nextDeliveryAt, null);
  assert.equal("digestMinutes" in listed, false);
  assert.equal("quietHours" in listed, false);
  assert.equal("exclude" in listed, false);
  await mcp.call({ action: "unsubscribe", subscription_id: r.subscription.id });
});

test("refusals say what is wrong, use the spec's words and subscribe nothing", async () => {
  const before = (await mine()).length;
  const cases: [Record<string, unknown>, string, string][] = [
    [{ sessions: [watcher] }, "REMOTE_RELAY_FORBIDDEN", "own conversation is never watched"],
    [
      { sessions: [a], exclude: [b] },
      "REMOTE_RELAY_INVALID_INPUT",
      'exclude goes with sessions ["all"] only; a list of sessions names what it watches',
    ],
    [
      { sessions: [a], quiet_hours: { from: "7:00", to: "06:00", tz: "Europe/Berlin" } },
      "REMOTE_RELAY_INVALID_INPUT",
      'quiet_hours from and to must be times of day as "HH:MM" (00:00 to 23:59)',
    ],
    [
      { sessions: [a], quiet_hours: { from: "24:00", to: "06:00", tz: "Europe/Berlin" } },
      "REMOTE_RELAY_INVALID_INPUT",
      'quiet_hours from and to must be times of day as "HH:MM" (00:00 to 23:59)',
    ],
    [
      { sessions: [a], quiet_hours: { from: "06:00", to: "06:00", tz: "Europe/Berlin" } },
      "REMOTE_RELAY_INVALID_INPUT",
      "quiet_hours from and to must differ",
    ],
    [
      { sessions: [a], quiet_hours: { from: "23:00", to: "06:00", tz: "Berlin" } },
      "REMOTE_RELAY_INVALID_INPUT",
      'quiet_hours tz "Berlin" is not an IANA time zone (for example "Europe/Berlin", "America/New_York", "UTC")',
    ],
    [
      { sessions: [a], quiet_hours: { from: "23:00", to: "06:00", tz: "+01:00" } },
      "REMOTE_RELAY_INVALID_INPUT",
      'quiet_hours tz "+01:00" is not an IANA time zone',
    ],
    [{ sessions: [a], events: ["turn_end", "finished"] }, "REMOTE_RELAY_INVALID_INPUT", 'Unknown event "finished"'],
    [{ sessions: ["ses_nope"] }, "REMOTE_RELAY_NOT_FOUND", 'No session "ses_nope"'],
    [{ sessions: ["all", a] }, "REMOTE_RELAY_INVALID_INPUT", '["all"]'],
    [{ sessions: [a], digest_minutes: 0 }, "REMOTE_RELAY_INVALID_INPUT", "digest_minutes must be a whole number"],
  ];
  for (const [args, code, words] of cases) {
    const r = await mcp.call({ action: "subscribe", ...args });
    assert.equal(r.ok, false, JSON.stringify(args));
    assert.equal(r.code, code, `${JSON.stringify(args)} → ${r.error}`);
    assert.ok(r.error.includes(words), `${r.error} should include ${words}`);
    assert.match(r.error, /Nothing was subscribed\.$/);
  }
  assert.equal((await mine()).length, before);

  // A quiet_hours whose every field is empty counts as none.
  const none = await mcp.call({ action: "subscribe", sessions: [a], quiet_hours: { from: "", to: "", tz: "" } });
  assert.equal(none.ok, true, JSON.stringify(none));
  assert.equal("quietHours" in none.subscription, false);
  await mcp.call({ action: "unsubscribe", subscription_id: none.subscription.id });
});

test("a conversation holds 20 subscriptions at a time", async () => {
  const have = (await mine()).filter((s) => s.active).length;
  const made: string[] = [];
  for (let i = have; i < 20; i++) made.push((await mcp.call({ action: "subscribe", sessions: [a] })).subscription.id);
  const r = await mcp.call({ action: "subscribe", sessions: [b] });
  assert.equal(r.code, "REMOTE_RELAY_SUBSCRIPTION_LIMIT");
  assert.match(r.error, /20/);
  assert.equal((await mine()).filter((s) => s.active).length, 20);
  const u = await mcp.call({ action: "unsubscribe", subscription_id: made[0] });
  assert.deepEqual(u.ended, [made[0]]);
  assert.equal((await mcp.call({ action: "subscribe", sessions: [b] })).ok, true);
});

test("unsubscribe all; ended subscriptions are listed an hour with their reason", async () => {
  const r = await mcp.call({ action: "unsubscribe", subscription_id: "all" });
  assert.equal(r.ok, true);
  assert.equal(r.ended.length, 20);
  const list = await mine();
  assert.ok(list.length >= 20);
  for (const s of list) {
    assert.equal(s.active, false);
    assert.equal(s.endReason, "unsubscribed");
    assert.ok(s.endedAt);
    assert.equal("heldCount" in s, false);
  }
  const other = await mcp.call({ action: "unsubscribe", subscription_id: "sub_nope" });
  assert.equal(other.code, "REMOTE_RELAY_NOT_FOUND");
  await relay.advance(61 * 60_000);
  assert.equal((await mine()).length, 0);
});

test("list_subscriptions with watcher shows another conversation's; transfer always asks", async () => {
  const old = await relay.createSession({ title: "Old desk" });
  await toolInTurn(relay, old, { action: "subscribe", sessions: [a, b] });
  const oldMcp = await relay.mcp(old);
  const second = await oldMcp.call({ action: "subscribe", sessions: ["all"], digest_minutes: 10 });
  assert.equal(second.ok, true);

  const seen = await mcp.call({ action: "list_subscriptions", watcher: old });
  assert.equal(seen.watcher, old);
  assert.equal(seen.subscriptions.filter((s: any) => s.active).length, 2);

  // Denied: nothing moves.
  const denied = await toolInTurn(relay, watcher, { action: "transfer_subscriptions", from: old }, "deny");
  assert.equal(denied.cards.length, 1);
  assert.match(denied.cards[0].text, /transfer_subscriptions always asks/);
  assert.equal(denied.result.code, "REMOTE_RELAY_PERMISSION");
  // The refusal ends with this action's own words, not a generic tail.
  assert.match(denied.result.error, /Nothing was transferred\.$/);
  assert.equal(
    (await oldMcp.call({ action: "list_subscriptions" })).subscriptions.filter((s: any) => s.active).length,
    2,
  );

  const moved = await toolInTurn(relay, watcher, { action: "transfer_subscriptions", from: old });
  assert.equal(moved.cards.length, 1, "a card every time");
  assert.equal(moved.result.ok, true, JSON.stringify(moved.result));
  assert.equal(moved.result.subscriptions.length, 2);
  const olds = (await oldMcp.call({ action: "list_subscriptions" })).subscriptions;
  assert.deepEqual(
    olds.map((s: any) => s.endReason),
    ["transferred", "transferred"],
  );
  const now = (await mine()).filter((s) => s.active);
  assert.equal(now.length, 2);
  assert.equal(now.find((s) => s.digestMinutes === 10).sessions, "all");

  const self = await mcp.call({ action: "transfer_subscriptions", from: watcher });
  assert.equal(self.code, "REMOTE_RELAY_FORBIDDEN");
  const empty = await mcp.call({ action: "transfer_subscriptions", from: old });
  assert.equal(empty.code, "REMOTE_RELAY_NOT_FOUND");
  await mcp.call({ action: "unsubscribe", subscription_id: "all" });
});

test("the owner sees watching N and watched, and presses Unsubscribe", async () => {
  const r = await mcp.call({ action: "subscribe", sessions: [a, b] });
  const list = (await relay.api("GET", "/api/sessions")).json.sessions as any[];
  const entry = (id: string) => list.find((s) => s.id === id);
  assert.equal(entry(watcher).watching, 2);
  assert.equal(entry(a).watched, true);
  assert.equal(entry(watcher).watched, false);
  const ls = await mcp.call({ action: "list_sessions", relay: "this" });
  assert.equal(ls.sessions.find((s: any) => s.id === watcher).watching, 2);

  const del = await relay.api("DELETE", `/api/subscriptions/${r.subscription.id}`);
  assert.equal(del.status, 200);
  assert.equal(del.json.active, false);
  assert.equal(del.json.endReason, "unsubscribed");
  const after = (await relay.api("GET", "/api/sessions")).json.sessions as any[];
  assert.equal(after.find((s) => s.id === watcher).watching, 0);
  assert.equal(after.find((s) => s.id === a).watched, false);
  assert.equal((await relay.api("DELETE", "/api/subscriptions/sub_nope")).status, 404);
  const chips = await relay.api("GET", `/api/subscriptions?watcher=${watcher}`);
  assert.ok(chips.json.subscriptions.some((s: any) => s.id === r.subscription.id && !s.active));
});

test("archiving a watched session or the watcher ends its subscriptions", async () => {
  const c = await relay.createSession({ title: "to archive" });
  const one = await mcp.call({ action: "subscribe", sessions: [c, a] });
  const all = await mcp.call({ action: "subscribe", sessions: ["all"] });
  await relay.api("POST", `/api/sessions/${c}/archive`);
  const list = await mine();
  assert.equal(list.find((s) => s.id === one.subscription.id).endReason, "archived");
  assert.equal(list.find((s) => s.id === all.subscription.id).active, true, "all sessions goes on");
  const gone = await mcp.call({ action: "subscribe", sessions: [c] });
  assert.equal(gone.code, "REMOTE_RELAY_ARCHIVED");

  const w2 = await relay.createSession({ title: "short-lived watcher" });
  await toolInTurn(relay, w2, { action: "subscribe", sessions: [a] });
  await relay.api("POST", `/api/sessions/${w2}/archive`);
  const theirs = (await mcp.call({ action: "list_subscriptions", watcher: w2 })).subscriptions;
  assert.equal(theirs.length, 1);
  assert.equal(theirs[0].endReason, "archived");
});

test("a relay emulating 0.9.12 refuses what came later: digest, quiet hours, exclude, subagent_finished by name", async () => {
  const old = await TestRelay.start({ emulateVersion: "0.9.12" });
  try {
    const w = await old.createSession({ title: "w" });
    const x = await old.createSession({ title: "x" });
    const m = await old.mcp(w);
    for (const args of [
      { sessions: [x], digest_minutes: 10 },
      { sessions: [x], quiet_hours: { from: "23:00", to: "06:00", tz: "UTC" } },
      { sessions: ["all"], exclude: [x] },
      { sessions: [x], events: ["subagent_finished"] },
    ]) {
      const r = await m.call({ action: "subscribe", ...args });
      assert.equal(r.code, "REMOTE_RELAY_UNSUPPORTED", JSON.stringify(args));
      assert.match(r.error, /0\.9\.1[36] or newer/);
    }
  } finally {
    await old.stop();
  }
});

test("a denied subscribe card says nothing was subscribed", async () => {
  const fresh = await relay.createSession({ title: "Fresh watcher" });
  const denied = await toolInTurn(relay, fresh, { action: "subscribe", sessions: [a] }, "deny");
  assert.equal(denied.cards.length, 1);
  assert.equal(denied.result.code, "REMOTE_RELAY_PERMISSION");
  assert.match(denied.result.error, /Nothing was subscribed\.$/);
  const freshMcp = await relay.mcp(fresh);
  assert.equal((await freshMcp.call({ action: "list_subscriptions" })).subscriptions.length, 0);
});
