// Budgets wired into a real relay (contract §10.4, docs/budgets.md): the scripted agent's
// `/usage IN OUT COST` line makes each turn's reported spend; a $1/day relay budget with
// turns of $0.40 lets the third run (it starts below the limit) and holds the fourth in its
// queue with a `budget` card; allow once, raise and stop act on it; a restart keeps the hold
// and the card; the day (the relay's TZ) ends on the manual clock and the hold
// with it (a fixed-offset zone where it is about noon now: a restarted relay's test clock
// starts at the real time, and must be on the same local day). Also: the setting's refusals, the 80 % notice in the Inbox, `usage`'s budgets, a
// waiting agent's `heldForBudget`, and a token budget released by removing it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { TestRelay, type McpSession } from "./helpers/relay-process.ts";
import { noonZone } from "./helpers/budget-kit.ts";

const TURN = (name: string) => `/usage 1000 500 0.40\n/reply ${name}`;

// The relay's zone: it is about 12:00 there now; MIDNIGHT is where its day ends.
const { TZ, MIDNIGHT } = noonZone();

let relay: TestRelay;
before(async () => {
  relay = await TestRelay.start({ env: { TZ } });
});
after(() => relay.stop());

/** The owner's message, not waited for; its message id. */
async function post(sessionId: string, text: string): Promise<string> {
  const r = await relay.api("POST", `/api/sessions/${sessionId}/messages`, { text });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return r.json.message_id;
}

/** What relay_tool `wait` answers an agent about that message's turn, at once. */
const waitNow = (agent: McpSession, session: string, messageId: string) =>
  agent.call({ action: "wait", relay: "this", session, message_id: messageId, wait_seconds: 0 });

const budgetCards = async (sessionId: string) =>
  (await relay.api("GET", `/api/cards?session=${sessionId}`)).json.cards.filter((c: any) => c.kind === "budget");
const usageOf = async (id: string) => (await relay.api("GET", "/api/usage")).json.budgets.find((b: any) => b.id === id);

test("the budgets setting refuses bad entries naming the field, and changes nothing", async () => {
  const bad: [unknown, RegExp][] = [
    [[{ scope: "relay", period: "day", usd: 0 }], /budgets\[0\]\.usd/],
    [[{ scope: "relay", period: "week", usd: 1 }], /budgets\[0\]\.period/],
    [[{ scope: "session", target: "ses_nope", period: "day", usd: 1 }], /budgets\[0\]\.target.*no session "ses_nope"/],
    [[{ scope: "provider", target: "nobody", period: "day", usd: 1 }], /no provider "nobody"/],
    [[{ scope: "relay", period: "day" }], /budgets\[0\] is not valid: it needs a limit/],
  ];
  for (const [value, words] of bad) {
    const r = await relay.api("PATCH", "/api/settings", { budgets: value });
    assert.equal(r.status, 400, JSON.stringify(r.json));
    assert.equal(r.json.code, "REMOTE_RELAY_INVALID_INPUT");
    assert.match(r.json.error, words);
    assert.match(r.json.error, /Nothing was changed/);
  }
  assert.deepEqual((await relay.api("GET", "/api/settings")).json.budgets, []);
  const ok = await relay.api("PATCH", "/api/settings", {
    budgets: [{ scope: "provider", target: "scripted", period: "month", tokens: 1e9 }],
  });
  assert.equal(ok.status, 200, JSON.stringify(ok.json));
  assert.match(ok.json.budgets[0].id, /^bud_/, "an id left out is made");
  assert.equal((await relay.api("PATCH", "/api/settings", { budgets: [] })).status, 200);
});

test("$1/day with $0.40 turns: the 4th waits with a card; restart keeps it; allow once, raise, stop; the day's end releases", async () => {
  assert.equal(
    (await relay.api("PATCH", "/api/settings", { budgets: [{ id: "daily", scope: "relay", period: "day", usd: 1 }] }))
      .status,
    200,
  );
  const s = await relay.createSession({ title: "Spender" });
  const watcher = await relay.createSession({ title: "Watcher" });

  assert.equal((await relay.say(s, TURN("one"))).text, "one");
  assert.equal((await relay.api("GET", "/api/inbox")).json.notices.length, 0, "40 % says nothing");
  assert.equal((await relay.say(s, TURN("two"))).text, "two");
  // 80 %: one notice, in the Inbox.
  const notices = (await relay.api("GET", "/api/inbox")).json.notices;
  assert.equal(notices.length, 1);
  assert.equal(notices[0].kind, "notice");
  assert.equal(notices[0].budget, "daily");
  assert.match(notices[0].text, /\$0\.80 of \$1\.00 spent today \(80 %\)/);
  // It starts below the limit and runs to its end, taking spent past it.
  assert.equal((await relay.say(s, TURN("three"))).text, "three");
  assert.equal((await relay.api("GET", "/api/inbox")).json.notices.length, 1, "once per period");

  const m4 = await post(s, TURN("four"));
  const [card4] = await relay.waitFor(async () => ((await budgetCards(s)).length ? budgetCards(s) : null));
  assert.deepEqual(
    card4.options.map((o: any) => o.id),
    ["raise", "allow_once", "stop"],
  );
  assert.equal(card4.budget, "daily");
  assert.match(card4.text, /Budget "daily" \(this relay, per day\) reached its limit: \$1\.20 of \$1\.00 spent today/);
  assert.equal(card4.expiresAt, null);
  const agent = await relay.mcp(watcher);
  const held = await waitNow(agent, s, m4);
  assert.equal(held.status, "queued", JSON.stringify(held));
  assert.deepEqual(held.heldForBudget, { budget: "daily", spentUsd: 1.2, limitUsd: 1 });
  assert.match(held.note, /reached its limit.*The owner was asked/);
  // A long wait answers at once (the manual clock does not move): the turn waits for the owner.
  const long = await agent.call({ action: "wait", relay: "this", session: s, message_id: m4, wait_seconds: 600 });
  assert.deepEqual([long.status, long.heldForBudget?.budget], ["queued", "daily"]);
  const view = await usageOf("daily");
  assert.deepEqual(
    { ...view, resetsAt: undefined },
    {
      id: "daily",
      scope: "relay",
      target: null,
      period: "day",
      limitUsd: 1,
      limitTokens: null,
      spentUsd: 1.2,
      spentTokens: 4500,
      remainingUsd: 0,
      heldTurns: 1,
      resetsAt: undefined,
    },
  );
  assert.equal(view.resetsAt, new Date(MIDNIGHT).toISOString(), "the zone's midnight");
  // relay_tool usage shows the same to an agent.
  assert.equal(
    (await agent.call({ action: "usage", relay: "this" })).budgets.find((b: any) => b.id === "daily").heldTurns,
    1,
  );

  // A restart while it is held: still queued, held again, the same card still pending.
  await relay.restart();
  const again = await relay.mcp(watcher);
  assert.equal((await waitNow(again, s, m4)).heldForBudget?.budget, "daily");
  assert.deepEqual(
    (await budgetCards(s)).map((c: any) => [c.id, c.status]),
    [[card4.id, "pending"]],
  );

  // Allow once: that turn runs.
  const allowed = await relay.api("POST", `/api/cards/${card4.id}`, { optionId: "allow_once" });
  assert.equal(allowed.status, 200, JSON.stringify(allowed.json));
  assert.equal(allowed.json.status, "allowed");
  assert.equal(
    (
      await relay.waitFor(async () => {
        const r = await waitNow(again, s, m4);
        return r.status === "done" && r;
      })
    ).reply.text,
    "four",
  );

  // Raise: refused at or below what was spent (nothing changes), then to $2 releases the next.
  const m5 = await post(s, TURN("five"));
  const [card5] = await relay.waitFor(async () => ((await budgetCards(s)).length ? budgetCards(s) : null));
  const low = await relay.api("POST", `/api/cards/${card5.id}`, { optionId: "raise", limitUsd: 1.5 });
  assert.equal(low.json.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.match(low.json.error, /more than the \$1\.60 already spent/);
  assert.equal(
    (await relay.api("POST", `/api/cards/${card5.id}`, { optionId: "allow_once", limitUsd: 3 })).json.code,
    "REMOTE_RELAY_INVALID_INPUT",
  );
  assert.equal((await usageOf("daily")).limitUsd, 1);
  assert.equal((await waitNow(again, s, m5)).status, "queued");
  const raised = await relay.api("POST", `/api/cards/${card5.id}`, { optionId: "raise", limitUsd: 2 });
  assert.equal(raised.status, 200, JSON.stringify(raised.json));
  assert.equal(
    (
      await relay.waitFor(async () => {
        const r = await waitNow(again, s, m5);
        return r.status === "done" && r;
      })
    ).reply.text,
    "five",
  );
  assert.equal((await relay.api("GET", "/api/settings")).json.budgets[0].usd, 2);
  assert.equal(
    (await relay.api("POST", `/api/cards/${card5.id}`, { optionId: "stop" })).json.code,
    "REMOTE_RELAY_NOT_FOUND",
    "decided once",
  );

  // Stop: the held turn ends as stopped, nothing of it ran.
  const m6 = await post(s, TURN("six"));
  const [card6] = await relay.waitFor(async () => ((await budgetCards(s)).length ? budgetCards(s) : null));
  assert.equal((await relay.api("POST", `/api/cards/${card6.id}`, { optionId: "stop" })).json.status, "denied");
  const stopped = await waitNow(again, s, m6);
  assert.equal(stopped.status, "stopped");
  assert.equal(stopped.reply.text, "");
  assert.equal((await usageOf("daily")).spentUsd, 2);

  // The day ends (the zone's midnight) on the relay's clock: the hold ends with it.
  const m7 = await post(s, TURN("seven"));
  const [card7] = await relay.waitFor(async () => ((await budgetCards(s)).length ? budgetCards(s) : null));
  await relay.setClock(new Date(MIDNIGHT - 60_000).toISOString());
  assert.equal((await waitNow(again, s, m7)).status, "queued", "still the same day there");
  await relay.setClock(new Date(MIDNIGHT).toISOString());
  assert.equal(
    (
      await relay.waitFor(async () => {
        const r = await waitNow(again, s, m7);
        return r.status === "done" && r;
      })
    ).reply.text,
    "seven",
  );
  const settled = (await relay.session(s)).cards?.find((c: any) => c.id === card7.id);
  if (settled) assert.equal(settled.status, "expired");
  assert.equal((await budgetCards(s)).length, 0, "its card is no longer pending");
  const today = await usageOf("daily");
  assert.equal(today.spentUsd, 0.4, "the new day counts from 0");
  assert.equal(today.heldTurns, 0);
  assert.equal((await relay.api("GET", "/api/inbox")).json.notices.length, 0, "yesterday's notice is gone");
});

test("a token budget on one session holds it alone; removing the budget releases the held turn; a notice is dismissed", async () => {
  const s = await relay.createSession({ title: "Tokens" });
  const other = await relay.createSession({ title: "Free" });
  assert.equal(
    (
      await relay.api("PATCH", "/api/settings", {
        budgets: [{ id: "tok", scope: "session", target: s, period: "total", tokens: 3000 }],
      })
    ).status,
    200,
  );
  assert.equal((await relay.say(s, "/usage 1000 500 0\n/reply a")).text, "a");
  assert.equal((await relay.say(s, "/usage 1000 500 0\n/reply b")).text, "b");
  const m = await post(s, "/reply c");
  const agent = await relay.mcp(other);
  const held = await relay.waitFor(async () => {
    const r = await waitNow(agent, s, m);
    return r.heldForBudget && r;
  });
  assert.deepEqual(held.heldForBudget, {
    budget: "tok",
    spentUsd: 0,
    limitUsd: null,
    spentTokens: 3000,
    limitTokens: 3000,
  });
  assert.equal((await relay.say(other, "/reply free")).text, "free", "another session is not under it");
  // The page's chart: spend per local day and session (GET /api/usage?days=&by=).
  const chart = (await relay.api("GET", "/api/usage?days=3&by=session")).json.spendOverTime;
  assert.equal(chart.days.length, 3);
  assert.equal(
    chart.series.find((x: any) => x.key === s).tokens.reduce((a: number, b: number) => a + b, 0),
    3000,
  );
  assert.equal((await relay.api("GET", "/api/usage?days=0")).json.code, "REMOTE_RELAY_INVALID_INPUT");
  assert.equal((await relay.api("GET", "/api/usage?by=model")).json.code, "REMOTE_RELAY_INVALID_INPUT");
  const notice = (await relay.api("GET", "/api/inbox")).json.notices.find((n: any) => n.budget === "tok");
  assert.match(notice.text, /3,000 of 3,000 tokens/);
  assert.equal(
    (await relay.api("POST", `/api/questions/${notice.id}`, { answer: "x" })).json.code,
    "REMOTE_RELAY_INVALID_INPUT",
  );
  assert.equal((await relay.api("POST", `/api/questions/${notice.id}`, { dismiss: true })).status, 200);
  assert.equal(
    (await relay.api("GET", "/api/inbox")).json.notices.some((n: any) => n.budget === "tok"),
    false,
  );
  assert.equal((await relay.api("PATCH", "/api/settings", { budgets: [] })).status, 200);
  assert.equal(
    (
      await relay.waitFor(async () => {
        const r = await waitNow(agent, s, m);
        return r.status === "done" && r;
      })
    ).reply.text,
    "c",
  );
});

test("a schedule that fires into a held session waits like a prompt, its card raised", async () => {
  const s = await relay.createSession({ title: "Scheduled" });
  assert.equal(
    (
      await relay.api("PATCH", "/api/settings", {
        budgets: [{ id: "once", scope: "session", target: s, period: "total", usd: 0.4 }],
      })
    ).status,
    200,
  );
  assert.equal((await relay.say(s, TURN("paid"))).text, "paid");
  const now = Date.parse(await relay.advance(0));
  const sch = await relay.api("POST", "/api/schedules", {
    session: s,
    text: "/reply scheduled",
    at: new Date(now + 10 * 60_000).toISOString(),
  });
  assert.equal(sch.status, 201, JSON.stringify(sch.json));
  await relay.advance(10 * 60_000 + 1000);
  const [card] = await relay.waitFor(async () => ((await budgetCards(s)).length ? budgetCards(s) : null));
  assert.equal(card.budget, "once");
  assert.equal((await usageOf("once")).heldTurns, 1);
  const replies = async () => (await relay.session(s)).messages.filter((m: any) => m.role === "agent").length;
  assert.ok(
    (await relay.session(s)).messages.some((m: any) => m.role === "schedule"),
    "it fired: its message is queued",
  );
  assert.equal(await replies(), 1, "held, not run");
  assert.equal((await relay.api("POST", `/api/cards/${card.id}`, { optionId: "allow_once" })).status, 200);
  await relay.waitFor(async () => (await replies()) === 2);
  assert.equal((await relay.api("PATCH", "/api/settings", { budgets: [] })).status, 200);
});

test("a turn queued behind one whose usage reaches the limit is held: spend is counted before the next turn starts", async () => {
  const s = await relay.createSession({ title: "Back to back" });
  assert.equal(
    (
      await relay.api("PATCH", "/api/settings", {
        budgets: [{ id: "b2b", scope: "session", target: s, period: "total", usd: 0.4 }],
      })
    ).status,
    200,
  );
  const first = await post(s, "/sleep 300\n/usage 1000 500 0.40\n/reply first");
  const second = await post(s, "/reply second");
  const agent = await relay.mcp(await relay.createSession({ title: "Looker" }));
  const done = await relay.waitFor(async () => {
    const r = await waitNow(agent, s, first);
    return r.status === "done" && r;
  });
  assert.equal(done.reply.text, "first");
  const held = await relay.waitFor(async () => {
    const r = await waitNow(agent, s, second);
    return r.status !== "running" && r;
  });
  assert.equal(held.status, "queued", JSON.stringify(held));
  assert.equal(held.heldForBudget?.budget, "b2b");
  assert.equal((await relay.api("PATCH", "/api/settings", { budgets: [] })).status, 200);
});

test("a running turn is never cut off: spend past the limit meanwhile and a lowered limit let it finish, its cost counted; the next waits", async () => {
  const group = (await relay.api("POST", "/api/groups", { name: "Crew" })).json;
  const long = await relay.createSession({ title: "Long" });
  const quick = await relay.createSession({ title: "Quick" });
  for (const s of [long, quick])
    assert.equal((await relay.api("POST", `/api/groups/${group.id}/sessions`, { session: s })).status, 200);
  const crew = (usd: number) =>
    relay.api("PATCH", "/api/settings", {
      budgets: [{ id: "crew", scope: "group", target: group.id, period: "total", usd }],
    });
  assert.equal((await crew(1)).status, 200);
  // A turn that waits for the owner's answer runs as long as the test wants.
  const m = await post(long, "/ask_user Go on?|yes|no\n/usage 1000 500 0.40\n/reply long done");
  const question = await relay.waitFor(async () =>
    (await relay.api("GET", "/api/inbox")).json.questions.find((q: any) => q.session === long),
  );
  // Meanwhile the group's other session spends past the limit and the owner lowers it.
  for (const n of ["q1", "q2", "q3"]) assert.equal((await relay.say(quick, TURN(n))).text, n);
  assert.equal((await crew(0.5)).status, 200);
  assert.equal((await usageOf("crew")).spentUsd, 1.2);
  const agent = await relay.mcp(await relay.createSession({ title: "Onlooker" }));
  const running = await waitNow(agent, long, m);
  assert.equal(running.status, "waiting_question", JSON.stringify(running));
  assert.equal(running.heldForBudget, undefined);

  assert.equal((await relay.api("POST", `/api/questions/${question.id}`, { choice: "yes" })).status, 200);
  const done = await relay.waitFor(async () => {
    const r = await waitNow(agent, long, m);
    return r.status === "done" && r;
  });
  assert.match(done.reply.text, /answer: yes\nlong done/);
  assert.equal((await usageOf("crew")).spentUsd, 1.6, "its cost counts, past the limit");
  // The session's next turn waits for the owner.
  const next = await post(long, "/reply next");
  const held = await relay.waitFor(async () => {
    const r = await waitNow(agent, long, next);
    return r.heldForBudget && r;
  });
  assert.deepEqual(held.heldForBudget, { budget: "crew", spentUsd: 1.6, limitUsd: 0.5 });
  assert.equal((await relay.api("PATCH", "/api/settings", { budgets: [] })).status, 200);
});
