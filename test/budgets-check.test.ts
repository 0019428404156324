// Budgets (contract §10.4) on the manual clock and a real SQLite file: the check a turn passes
// before it starts, the owner's raise and allow once, and how each scope and limit counts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { withKit } from "./helpers/budget-kit.ts";
import type { Held } from "../src/budgets/budgets.ts";

const T0 = Date.parse("2026-03-02T12:00:00.000Z");
const MIDNIGHT = Date.parse("2026-03-03T00:00:00.000Z"); // T0's day ends (UTC)
const DAILY = { id: "daily", scope: "relay", period: "day", usd: 1 };
const forty = { inputTokens: 1000, outputTokens: 200, costUsd: 0.4 };

test("a $1/day relay budget with $0.40 turns: the third runs (it starts below), the fourth is held", () =>
  withKit({ at: T0, budgets: [DAILY] }, (kit) => {
    const s = kit.session();
    assert.equal(kit.runTurn(s, forty).ran, true);
    assert.equal(kit.runTurn(s, forty).ran, true);
    // $0.80 spent: below the limit, so the third starts and its cost takes spent past $1.
    assert.equal(kit.runTurn(s, forty).ran, true);
    const fourth = kit.check(s, "trn_fourth");
    assert.deepEqual(fourth, {
      held: true,
      budget: "daily",
      spentUsd: 1.2,
      limitUsd: 1,
      spentTokens: 3600,
      limitTokens: null,
      periodEnd: MIDNIGHT,
    });
    assert.equal(
      kit.budgets.holdText(fourth as Held),
      'Budget "daily" (this relay, per day) reached its limit: $1.20 of $1.00 spent today. This turn waits until the owner raises the limit or lets it run once or until the day ends; nothing is lost.',
    );
    // Every session of the relay waits, not only the one that spent.
    assert.equal(kit.held(kit.session("deepseek")), true);
  }));

test("a limit is reached at spent = limit exactly, not a micro-dollar before", () =>
  withKit({ at: T0, budgets: [DAILY] }, (kit) => {
    const s = kit.session();
    kit.runTurn(s, { costUsd: 0.999999 });
    assert.equal(kit.held(s), false);
    kit.runTurn(s, { costUsd: 0.000001 });
    assert.equal(kit.held(s), true);
  }));

test("raise to $2 releases the held turn; a raise must lie above what was spent and changes the setting", () =>
  withKit({ at: T0, budgets: [DAILY] }, (kit) => {
    const s = kit.session();
    for (let i = 0; i < 3; i++) kit.runTurn(s, forty);
    assert.equal(kit.held(s), true);
    assert.throws(() => kit.budgets.raise("daily", 1.2), {
      code: "REMOTE_RELAY_INVALID_INPUT",
      message: "limitUsd must be more than the $1.20 already spent. Nothing was changed.",
    });
    assert.throws(() => kit.budgets.raise("daily"), {
      code: "REMOTE_RELAY_INVALID_INPUT",
      message: "raise needs limitUsd, limitTokens or both. Nothing was changed.",
    });
    assert.throws(() => kit.budgets.raise("daily", -3), { code: "REMOTE_RELAY_INVALID_INPUT" });
    assert.throws(() => kit.budgets.raise("nightly", 5), {
      code: "REMOTE_RELAY_NOT_FOUND",
      message: 'No budget "nightly". Nothing was changed.',
    });
    assert.equal(kit.budgetList[0].usd, 1, "a refused raise changed nothing");
    const v = kit.budgets.raise("daily", 2);
    assert.equal(v.limitUsd, 2);
    assert.equal(v.remainingUsd, 0.8);
    assert.deepEqual(kit.budgetList, [
      { id: "daily", scope: "relay", target: null, period: "day", usd: 2, tokens: null },
    ]);
    assert.equal(kit.runTurn(s, forty).ran, true, "the held turn runs ($1.20 < $2)");
    assert.equal(kit.runTurn(s, forty).ran, true);
    assert.equal(kit.runTurn(s, forty).ran, false, "$2.00 spent: held again");
  }));

test("allow once lets that one turn run while the budget holds; the next one is held again", () =>
  withKit({ at: T0, budgets: [DAILY] }, (kit) => {
    const s = kit.session();
    for (let i = 0; i < 3; i++) kit.runTurn(s, forty);
    assert.equal(kit.held(s, "trn_held"), true);
    kit.budgets.allowOnce("trn_held");
    assert.equal(kit.held(s, "trn_held"), false);
    assert.equal(kit.held(s, "trn_other"), true, "only that turn");
    assert.equal(kit.runTurn(s, forty, "trn_held").ran, true);
    assert.equal(kit.budgets.views()[0].spentUsd, 1.6, "an allowed turn's cost counts");
    assert.equal(kit.count("budget_allowances"), 0, "used up once the turn's usage is in");
    assert.equal(kit.held(s, "trn_next"), true);
  }));

test("a day ends at the relay zone's midnight, not UTC's: New York", () =>
  withKit({ at: Date.parse("2026-03-02T23:30:00Z"), zone: "America/New_York", budgets: [DAILY] }, async (kit) => {
    // 18:30 in New York on 2 March.
    const s = kit.session();
    for (let i = 0; i < 3; i++) kit.runTurn(s, forty);
    assert.equal(kit.held(s), true);
    await kit.set("2026-03-03T01:00:00Z"); // UTC's next day, still 20:00 on 2 March in New York
    assert.equal(kit.held(s), true);
    assert.equal(kit.budgets.views()[0].resetsAt, "2026-03-03T05:00:00.000Z", "local midnight");
    assert.equal(
      (kit.check(s) as Held).periodEnd,
      Date.parse("2026-03-03T05:00:00Z"),
      "the queue's timer looks again then",
    );
    await kit.set("2026-03-03T04:59:59.999Z");
    assert.equal(kit.held(s), true);
    await kit.set("2026-03-03T05:00:00Z"); // midnight in New York: a new day, the hold ends
    assert.equal(kit.held(s), false);
    assert.equal(kit.budgets.views()[0].spentUsd, 0);
    // Setting the clock back to the old day finds its spend again.
    await kit.set("2026-03-03T04:00:00Z");
    assert.equal(kit.held(s), true);
  }));

test("days follow daylight saving: the 23-hour and the 25-hour day in New York", () =>
  withKit({ at: Date.parse("2026-03-08T05:30:00Z"), zone: "America/New_York", budgets: [DAILY] }, async (kit) => {
    // 8 March 2026 00:30 EST; at 02:00 the clocks jump to 03:00 (EDT): the day has 23 hours.
    const s = kit.session();
    kit.runTurn(s, { costUsd: 1 });
    await kit.set("2026-03-09T03:59:00Z"); // 23:59 EDT, still 8 March
    assert.equal(kit.held(s), true);
    await kit.set("2026-03-09T04:00:00Z"); // midnight EDT
    assert.equal(kit.held(s), false);
    // 1 November 2026: at 02:00 EDT the clocks go back to 01:00 EST: 25 hours.
    await kit.set("2026-11-01T04:00:00Z"); // midnight EDT
    kit.runTurn(s, { costUsd: 1 });
    await kit.set("2026-11-01T06:30:00Z"); // 01:30 EST, the second pass of that hour
    assert.equal(kit.held(s), true);
    await kit.set("2026-11-02T04:59:00Z"); // 23:59 EST, 24 h 59 min after the day began
    assert.equal(kit.held(s), true);
    await kit.set("2026-11-02T05:00:00Z");
    assert.equal(kit.held(s), false);
  }));

test("a month budget holds until the 1st in the relay's zone; a total one never resets", () =>
  withKit({ at: Date.parse("2026-01-31T14:00:00Z"), zone: "Asia/Tokyo" }, async (kit) => {
    // 23:00 on 31 January in Tokyo.
    const s = kit.session();
    kit.setBudgets([
      { id: "monthly", scope: "relay", period: "month", usd: 5 },
      { id: "ever", scope: "session", target: s, period: "total", usd: 8 },
    ]);
    kit.runTurn(s, { costUsd: 5 });
    assert.equal((kit.check(s) as { budget: string }).budget, "monthly");
    await kit.set("2026-01-31T14:59:59Z");
    assert.equal(kit.held(s), true);
    await kit.set("2026-01-31T15:00:00Z"); // 1 February in Tokyo (still January in UTC)
    assert.equal(kit.held(s), false);
    kit.runTurn(s, { costUsd: 3 });
    assert.deepEqual(kit.check(s), {
      held: true,
      budget: "ever",
      spentUsd: 8,
      limitUsd: 8,
      spentTokens: 0,
      limitTokens: null,
      periodEnd: null,
    });
    await kit.advance(400 * 86_400_000);
    assert.equal((kit.check(s) as { budget: string }).budget, "ever", "total: a year later still held");
    assert.equal(kit.budgets.views().find((v) => v.id === "ever")!.resetsAt, null);
  }));

test("provider, group and session budgets hold only the sessions under them", () =>
  withKit({ at: T0 }, (kit) => {
    const deep = kit.session("deepseek");
    const grouped = kit.session("scripted", "grp_release");
    const sibling = kit.session("scripted", "grp_release");
    const alone = kit.session("scripted");
    kit.setBudgets([
      { id: "ds", scope: "provider", target: "deepseek", period: "day", usd: 1 },
      { id: "release", scope: "group", target: "grp_release", period: "day", usd: 1 },
      { id: "solo", scope: "session", target: alone, period: "day", usd: 1 },
    ]);
    kit.runTurn(deep, { costUsd: 1 });
    assert.deepEqual(
      [deep, grouped, sibling, alone].map((s) => kit.held(s)),
      [true, false, false, false],
    );
    kit.runTurn(grouped, { costUsd: 1 });
    assert.deepEqual(
      [deep, grouped, sibling, alone].map((s) => kit.held(s)),
      [true, true, true, false],
    );
    kit.runTurn(alone, { costUsd: 1 });
    assert.deepEqual(
      [deep, grouped, sibling, alone].map((s) => kit.held(s)),
      [true, true, true, true],
    );
    // A session that leaves the group leaves its hold; what it spent in the group stays there.
    kit.sessions.update(sibling, { group_id: null });
    assert.equal(kit.held(sibling), false);
    kit.sessions.update(grouped, { group_id: "grp_other" });
    assert.equal(kit.held(sibling), false);
    kit.sessions.update(sibling, { group_id: "grp_release" });
    assert.equal(kit.held(sibling), true, "the group's spend stayed with the group");
  }));

test("a group budget counts what its sessions' prompts to paired relays reported back; the relay's own budget does not", () =>
  withKit({ at: T0 }, (kit) => {
    const head = kit.session("scripted", "grp_fleet");
    const other = kit.session("scripted");
    kit.setBudgets([
      { id: "fleet", scope: "group", target: "grp_fleet", period: "day", usd: 1 },
      { id: "here", scope: "relay", period: "day", usd: 1 },
      { id: "head", scope: "session", target: head, period: "day", usd: 1 },
    ]);
    kit.budgets.recordRemote({ relay: "build-box", remoteTurn: "trn_w1", sessionId: head, usage: { costUsd: 0.6 } });
    assert.equal(kit.held(head), false);
    assert.equal(
      kit.budgets.recordRemote({ relay: "build-box", remoteTurn: "trn_w1", sessionId: head, usage: { costUsd: 0.6 } }),
      false,
      "reported twice, counted once",
    );
    kit.budgets.recordRemote({ relay: "build-box", remoteTurn: "trn_w2", sessionId: head, usage: { costUsd: 0.5 } });
    assert.deepEqual(kit.check(head), {
      held: true,
      budget: "fleet",
      spentUsd: 1.1,
      limitUsd: 1,
      spentTokens: 0,
      limitTokens: null,
      periodEnd: MIDNIGHT,
    });
    assert.equal(kit.held(other), false, "another relay's turns are that relay's spend");
    const views = Object.fromEntries(kit.budgets.views().map((v) => [v.id, v.spentUsd]));
    assert.deepEqual(views, { fleet: 1.1, here: 0, head: 0 });
  }));

test("a token budget: turns of 400 tokens against 1,000 — the third runs, the fourth is held", () =>
  withKit({ at: T0, budgets: [{ id: "tok", scope: "relay", period: "day", tokens: 1000 }] }, (kit) => {
    const s = kit.session();
    const t = { inputTokens: 300, outputTokens: 100 };
    assert.deepEqual(
      [1, 2, 3].map(() => kit.runTurn(s, t).ran),
      [true, true, true],
    );
    assert.deepEqual(kit.check(s), {
      held: true,
      budget: "tok",
      spentUsd: 0,
      limitUsd: null,
      spentTokens: 1200,
      limitTokens: 1000,
      periodEnd: MIDNIGHT,
    });
    assert.throws(() => kit.budgets.raise("tok", undefined, 1200), {
      message: "limitTokens must be more than the 1200 tokens already spent. Nothing was changed.",
    });
    kit.budgets.raise("tok", undefined, 2000);
    assert.equal(kit.held(s), false);
    // Both limits: whichever is reached first holds.
    kit.setBudgets([{ id: "both", scope: "relay", period: "day", usd: 100, tokens: 1500 }]);
    assert.equal(kit.runTurn(s, t).ran, true);
    assert.equal((kit.check(s) as { budget: string }).budget, "both");
  }));

test("a session with no budget over it, an unknown session and an empty setting are never held", () =>
  withKit({ at: T0 }, (kit) => {
    const s = kit.session();
    kit.runTurn(s, { costUsd: 50 });
    assert.equal(kit.held(s), false);
    kit.setBudgets([{ id: "x", scope: "session", target: "ses_elsewhere", period: "day", usd: 1 }]);
    assert.equal(kit.held(s), false);
    assert.equal(kit.held("ses_gone"), false);
  }));

test("the budgets as usage shows them: spent, limit, remaining, held turns, reset time", () =>
  withKit(
    { at: T0, zone: "Europe/Berlin", budgets: [DAILY, { id: "t", scope: "relay", period: "total", tokens: 10_000 }] },
    (kit) => {
      const s = kit.session();
      kit.runTurn(s, forty);
      assert.deepEqual(
        kit.budgets.views((id) => (id === "daily" ? 2 : 0)),
        [
          {
            id: "daily",
            scope: "relay",
            target: null,
            period: "day",
            limitUsd: 1,
            limitTokens: null,
            spentUsd: 0.4,
            spentTokens: 1200,
            remainingUsd: 0.6,
            heldTurns: 2,
            resetsAt: "2026-03-02T23:00:00.000Z",
          },
          {
            id: "t",
            scope: "relay",
            target: null,
            period: "total",
            limitUsd: null,
            limitTokens: 10000,
            spentUsd: 0.4,
            spentTokens: 1200,
            remainingUsd: null,
            heldTurns: 0,
            resetsAt: null,
          },
        ],
      );
      for (let i = 0; i < 3; i++) kit.runTurn(s, forty);
      assert.equal(kit.budgets.views()[0].remainingUsd, 0, "never below 0");
    },
  ));
