// The spend ledger behind budgets (contract §10.4): what a turn's usage costs (reported, or
// tokens × the listed price), counted once per turn, kept across a restart, followed into a
// new time zone, and drawn per day for the page's chart.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { withKit } from "./helpers/budget-kit.ts";
import { costUsd as agentCost } from "../src/providers/openai-agent/pricing.ts";
import { PRICES, costUsd } from "../src/providers/prices.ts";

const T0 = Date.parse("2026-03-02T12:00:00.000Z");
const DAY = 86_400_000;

test("a turn's usage recorded twice counts once", () =>
  withKit({ at: T0, budgets: [{ id: "d", scope: "relay", period: "day", usd: 10 }] }, (kit) => {
    const s = kit.session();
    const usage = { inputTokens: 10, outputTokens: 5, costUsd: 0.25 };
    assert.equal(kit.budgets.recordTurn({ turnId: "trn_a", sessionId: s, usage }), true);
    assert.equal(kit.budgets.recordTurn({ turnId: "trn_a", sessionId: s, usage }), false);
    assert.equal(
      kit.budgets.recordTurn({ turnId: "trn_a", sessionId: s, usage: { costUsd: 9 } }),
      false,
      "also with other figures",
    );
    kit.restart();
    assert.equal(kit.budgets.recordTurn({ turnId: "trn_a", sessionId: s, usage }), false, "also after a restart");
    assert.deepEqual(
      kit.budgets.views().map((v) => [v.spentUsd, v.spentTokens]),
      [[0.25, 15]],
    );
    assert.equal(kit.count("spend"), 1);
    // A turn that reported nothing leaves no row.
    assert.equal(kit.budgets.recordTurn({ turnId: "trn_b", sessionId: s, usage: {} }), false);
    assert.equal(kit.count("spend"), 1);
  }));

test("usage is recorded after the turn's end is committed, never inside another transaction", () =>
  withKit({ at: T0, budgets: [{ id: "d", scope: "relay", period: "day", usd: 1 }] }, (kit) => {
    const s = kit.session();
    kit.runTurn(s, { costUsd: 0.5 });
    assert.equal(kit.held(s), false, "the total is read (and kept in memory)");
    // A total kept in memory or a notice told from inside a transaction that is then rolled
    // back would count spend that never happened.
    assert.throws(
      () =>
        kit.db.transaction(() => kit.budgets.recordTurn({ turnId: "trn_in", sessionId: s, usage: { costUsd: 0.7 } }))(),
      /after the transaction that ended the turn has committed/,
    );
    assert.equal(kit.held(s), false);
    assert.equal(kit.count("spend"), 1);
    assert.equal(kit.budgets.recordTurn({ turnId: "trn_in", sessionId: s, usage: { costUsd: 0.7 } }), true);
    assert.equal(kit.held(s), true);
    assert.equal(kit.notified.length, 1);
  }));

test("what goes with a turn's ledger row (a paired relay's spend row) is written in its transaction, once per turn", () =>
  withKit({ at: T0, budgets: [{ id: "d", scope: "relay", period: "day", usd: 1 }] }, (kit) => {
    const s = kit.session();
    const written: string[] = [];
    const also = (tag: string) => () => {
      assert.equal(kit.db.inTransaction, true);
      kit.db.prepare("INSERT INTO budget_meta (key, value) VALUES (?, 'x')").run(tag);
      written.push(tag);
    };
    // It fails: neither the ledger row nor what went with it is kept, and nothing is counted.
    const fail = () => {
      kit.db.prepare("INSERT INTO budget_meta (key, value) VALUES ('half', 'x')").run();
      throw new Error("disk full");
    };
    assert.throws(
      () => kit.budgets.recordTurn({ turnId: "trn_a", sessionId: s, usage: { costUsd: 0.9 }, also: fail }),
      /disk full/,
    );
    assert.equal(kit.count("spend"), 0);
    assert.equal(kit.count("budget_meta WHERE key = 'half'"), 0);
    assert.equal(kit.budgets.views()[0].spentUsd, 0);
    assert.equal(
      kit.budgets.recordTurn({ turnId: "trn_a", sessionId: s, usage: { costUsd: 0.9 }, also: also("a") }),
      true,
    );
    assert.equal(
      kit.budgets.recordTurn({ turnId: "trn_a", sessionId: s, usage: { costUsd: 0.9 }, also: also("again") }),
      false,
    );
    assert.deepEqual(written, ["a"], "once per turn");
    assert.equal(kit.count("budget_meta WHERE key = 'a'"), 1);
    assert.equal(kit.budgets.views()[0].spentUsd, 0.9);
  }));

test("cost: the reported one; else tokens × the provider's listed price; else none, tokens still counted", () =>
  withKit({ at: T0, budgets: [{ id: "d", scope: "relay", period: "day", usd: 10, tokens: 10_000_000 }] }, (kit) => {
    const deep = kit.session("deepseek");
    const scripted = kit.session("scripted");
    const tokens = { inputTokens: 1_000_000, outputTokens: 500_000, cachedTokens: 400_000 };
    kit.budgets.recordTurn({ turnId: "t1", sessionId: deep, usage: tokens, model: "deepseek-v4" });
    kit.budgets.recordTurn({
      turnId: "t2",
      sessionId: deep,
      usage: { ...tokens, costUsd: 0.01 },
      model: "deepseek-v4",
    });
    kit.budgets.recordTurn({ turnId: "t3", sessionId: deep, usage: tokens, model: "deepseek-unknown" });
    kit.budgets.recordTurn({ turnId: "t4", sessionId: scripted, usage: tokens });
    const rows = kit.db.prepare("SELECT ref, cost_micros, priced FROM spend ORDER BY id").all();
    // 600k fresh × $0.28 + 400k cached × $0.028 + 500k out × $0.42 per million.
    assert.deepEqual(rows, [
      { ref: "t1", cost_micros: 389_200, priced: "price_table" },
      { ref: "t2", cost_micros: 10_000, priced: "reported" },
      { ref: "t3", cost_micros: 0, priced: "none" },
      { ref: "t4", cost_micros: 0, priced: "none" },
    ]);
    assert.deepEqual(
      kit.budgets.views().map((v) => [v.spentUsd, v.spentTokens]),
      [[0.3992, 6_000_000]],
    );
  }));

test("one price table, dated: our DeepSeek agent's reported cost comes from it", () => {
  assert.match(PRICES.deepseek.asOf, /^\d{4}-\d{2}-\d{2}$/);
  const t = { inputTokens: 1_000_000, outputTokens: 500_000, cachedTokens: 400_000 };
  assert.equal(costUsd("deepseek", "deepseek-v4", t), 0.3892);
  assert.equal(agentCost("deepseek", "deepseek-v4", t), 0.3892);
  assert.equal(agentCost("openai-compatible", "deepseek-v4", t), null, "another endpoint is never priced");
  assert.equal(costUsd("deepseek", "toString", t), null, "no model from the prototype");
  assert.equal(costUsd("constructor", "deepseek-v4", t), null);
});

test("restart keeps spend, holds, allowances and notices", () =>
  withKit({ at: T0, budgets: [{ id: "daily", scope: "relay", period: "day", usd: 1 }] }, async (kit) => {
    const s = kit.session();
    for (let i = 0; i < 3; i++) kit.runTurn(s, { costUsd: 0.4 });
    kit.budgets.allowOnce("trn_held");
    assert.equal(kit.notified.length, 1);
    kit.restart();
    assert.equal(kit.held(s), true);
    assert.equal(kit.held(s, "trn_held"), false, "the owner's allow once survives");
    assert.equal(kit.budgets.views()[0].spentUsd, 1.2);
    assert.equal(kit.budgets.pendingNotices().length, 1);
    kit.runTurn(s, { costUsd: 0.4 }, "trn_held");
    assert.equal(kit.notified.length, 1, "no second notice after the restart");
    await kit.advance(DAY);
    assert.equal(kit.held(s), false);
  }));

test("the 80 % notice: once per budget and period, stored; dismissable; again in the next period", () =>
  withKit(
    {
      at: T0,
      budgets: [
        { id: "daily", scope: "relay", period: "day", usd: 1 },
        { id: "tok", scope: "relay", period: "month", tokens: 1000 },
      ],
    },
    async (kit) => {
      const s = kit.session();
      kit.runTurn(s, { costUsd: 0.79 });
      assert.equal(kit.notified.length, 0, "79 %: nothing yet");
      kit.runTurn(s, { costUsd: 0.01 });
      assert.equal(kit.notified.length, 1);
      const [n] = kit.notified;
      assert.match(n.id, /^ntc_/);
      assert.deepEqual(
        { ...n, id: "" },
        {
          id: "",
          kind: "notice",
          budget: "daily",
          text: 'Budget "daily" (this relay, per day): $0.80 of $1.00 spent today (80 %). At the limit, new turns under it wait for you; running turns finish.',
          createdAt: "2026-03-02T12:00:00.000Z",
        },
      );
      kit.runTurn(s, { costUsd: 0.5 });
      kit.budgets.sweep();
      assert.equal(kit.notified.length, 1, "past 100 %: still the one notice");
      assert.deepEqual(kit.budgets.pendingNotices(), [n]);
      kit.budgets.dismissNotice(n.id);
      assert.deepEqual(kit.budgets.pendingNotices(), []);
      assert.throws(() => kit.budgets.dismissNotice("ntc_nope"), { code: "REMOTE_RELAY_NOT_FOUND" });
      // The token limit has its own notice; one turn may jump straight past 80 %.
      kit.budgets.recordTurn({ turnId: "trn_tok", sessionId: s, usage: { inputTokens: 700, outputTokens: 250 } });
      assert.equal(kit.notified.length, 2);
      assert.equal(
        kit.notified[1].text,
        'Budget "tok" (this relay, per month): 950 of 1,000 tokens spent this month (95 %). At the limit, new turns under it wait for you; running turns finish.',
      );
      // The next day: spend starts from 0, and reaching 80 % again is told again.
      await kit.advance(DAY);
      assert.deepEqual(
        kit.budgets.pendingNotices().map((x) => x.budget),
        ["tok"],
        "yesterday's notice is over with its day",
      );
      kit.runTurn(s, { costUsd: 0.85 });
      assert.deepEqual(
        kit.notified.map((x) => x.budget),
        ["daily", "tok", "daily"],
      );
      assert.equal(kit.count("budget_notices"), 3);
    },
  ));

test("sweep tells of a budget set up when spend was already past 80 %", () =>
  withKit({ at: T0 }, (kit) => {
    const s = kit.session("scripted", "grp_x");
    kit.runTurn(s, { costUsd: 9 });
    kit.setBudgets([{ id: "g", scope: "group", target: "grp_x", period: "month", usd: 10 }]);
    assert.deepEqual(
      kit.budgets.sweep().map((n) => n.budget),
      ["g"],
    );
    assert.deepEqual(kit.budgets.sweep(), []);
    assert.match(
      kit.notified[0].text,
      /^Budget "g" \(group "grp_x", per month\): \$9\.00 of \$10\.00 spent this month \(90 %\)/,
    );
  }));

test("the relay's time zone changed between starts: days and totals are counted again in the new one", () =>
  withKit(
    {
      at: Date.parse("2026-03-02T23:30:00Z"),
      zone: "UTC",
      budgets: [{ id: "d", scope: "relay", period: "day", usd: 1 }],
    },
    (kit) => {
      const s = kit.session();
      kit.runTurn(s, { costUsd: 1 }); // 23:30 on 2 March in UTC; 08:30 on 3 March in Tokyo
      kit.restart({ zone: "Asia/Tokyo" });
      assert.equal(kit.budgets.periods.zone, "Asia/Tokyo");
      assert.deepEqual(kit.db.prepare("SELECT day FROM spend").all(), [{ day: "2026-03-03" }]);
      assert.equal(kit.held(s), true);
      kit.restart({ zone: "UTC" });
      assert.deepEqual(kit.db.prepare("SELECT day FROM spend").all(), [{ day: "2026-03-02" }]);
      assert.equal(kit.held(s), true);
    },
  ));

test("without a zone given, days are those of the system's TZ (a child process with TZ set)", () => {
  const script = `
    import { Periods, systemZone } from "./src/budgets/periods.ts";
    const p = new Periods(systemZone());
    console.log(JSON.stringify({ zone: p.zone, day: p.dayOf(Date.parse("2026-03-02T23:30:00Z")) }));
  `;
  const run = (tz: string) =>
    JSON.parse(
      execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        env: { ...process.env, TZ: tz },
        encoding: "utf8",
      }),
    );
  assert.deepEqual(run("Asia/Tokyo"), { zone: "Asia/Tokyo", day: "2026-03-03" });
  assert.deepEqual(run("America/Los_Angeles"), { zone: "America/Los_Angeles", day: "2026-03-02" });
  assert.deepEqual(run("Not/AZone"), { zone: "UTC", day: "2026-03-02" });
});

test("spend over time: per local day, per provider and per session, the largest few as their own series", () =>
  withKit({ at: Date.parse("2026-03-01T10:00:00Z"), zone: "Europe/Berlin" }, async (kit) => {
    const deep = kit.session("deepseek");
    const a = kit.session("scripted");
    const b = kit.session("scripted");
    kit.runTurn(deep, { costUsd: 0.5, inputTokens: 100 });
    kit.runTurn(a, { costUsd: 0.25 });
    await kit.advance(2 * DAY);
    kit.runTurn(a, { costUsd: 1, outputTokens: 40 });
    kit.runTurn(b, { costUsd: 0.1 });
    kit.budgets.recordRemote({ relay: "box", remoteTurn: "trn_r", sessionId: a, usage: { costUsd: 7 } });
    const byProvider = kit.budgets.spendOverTime({ days: 3, by: "provider" });
    assert.deepEqual(byProvider, {
      by: "provider",
      days: ["2026-03-01", "2026-03-02", "2026-03-03"],
      series: [
        { key: "scripted", usd: [0.25, 0, 1.1], tokens: [0, 0, 40] },
        { key: "deepseek", usd: [0.5, 0, 0], tokens: [100, 0, 0] },
      ],
    });
    const bySession = kit.budgets.spendOverTime({ days: 2, by: "session", top: 1 });
    assert.deepEqual(bySession.days, ["2026-03-02", "2026-03-03"]);
    assert.deepEqual(bySession.series, [
      { key: a, usd: [0, 1], tokens: [0, 40] },
      { key: null, usd: [0, 0.1], tokens: [0, 0] },
    ]);
    assert.throws(() => kit.budgets.spendOverTime({ days: 0, by: "session" }), { code: "REMOTE_RELAY_INVALID_INPUT" });
    assert.throws(() => kit.budgets.spendOverTime({ by: "model" as "session" }), {
      code: "REMOTE_RELAY_INVALID_INPUT",
    });
  }));
