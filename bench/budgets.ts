// Budgets bench (issue 24, "How it is shown"): the budget check on the send path costs
// ≤ 50 µs p99 with 100 budgets and 100,000 stored turns. In-process on a real SQLite file:
// 1,000 sessions (8 providers, 50 groups) whose 100,000 turns' usage is recorded over 90 days
// through Budgets.recordTurn, 100 budgets over every scope and period with limits so high that
// none holds (every budget over a session is looked at: the slowest case). A check takes the
// session row the turn queue already holds when it picks the next turn (Turns.kick reads it
// to launch the turn); that lookup is shown on its own row for scale.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Budgets } from "../src/budgets/budgets.ts";
import { BudgetHolds } from "../src/budgets/holds.ts";
import { CardStore } from "../src/approvals/card-store.ts";
import type { TurnRow } from "../src/sessions/types.ts";
import { parseBudgets, type Budget } from "../src/core/budget-schema.ts";
import { ManualClock } from "../src/core/clock.ts";
import { Bus } from "../src/core/bus.ts";
import { SessionStore } from "../src/sessions/session-store.ts";
import { TaskStore } from "../src/tasks/task-store.ts";
import type { SessionRow } from "../src/sessions/types.ts";
import { openDb, type Db } from "../src/store/db.ts";
import { runBench, summarize, type Row } from "./lib/stats.ts";

const TURNS = Number(process.env.BUDGET_BENCH_TURNS ?? 100_000);
const CHECKS = Number(process.env.BUDGET_BENCH_CHECKS ?? 100_000);
const SESSIONS = 1_000;
const GROUPS = 50;
const PROVIDERS = ["claude", "claude-api", "copilot", "grok", "deepseek", "scripted", "openai-compatible", "gemini"];
const DAY = 86_400_000;
const TARGET_US = 50;

const us = (ms: number) => ms * 1000;

function open(
  dir: string,
  clock: ManualClock,
  list: { budgets: Budget[] },
): { db: Db; budgets: Budgets; sessions: SessionStore } {
  const db = openDb(join(dir, "oar.db"));
  const tasks = new TaskStore({ db, clock, bus: new Bus(), dataDir: dir });
  const sessions = new SessionStore({ db, clock, tasks });
  const budgets = new Budgets({
    db,
    clock,
    settings: { get: () => list.budgets, set: (b) => (list.budgets = b) },
    sessionOf: (id) => sessions.get(id),
    timeZone: "Europe/Berlin",
  });
  return { db, budgets, sessions };
}

function budgetSetting(sessionIds: string[]): Budget[] {
  const periods = ["day", "month", "total"] as const;
  const big = { usd: 1e8, tokens: 1e14 };
  const raw: unknown[] = [];
  for (let i = 0; i < 10; i++) raw.push({ id: `relay-${i}`, scope: "relay", period: periods[i % 3], ...big });
  for (let i = 0; i < 20; i++)
    raw.push({
      id: `prov-${i}`,
      scope: "provider",
      target: PROVIDERS[i % PROVIDERS.length],
      period: periods[i % 3],
      ...big,
    });
  for (let i = 0; i < 40; i++)
    raw.push({ id: `grp-${i}`, scope: "group", target: `grp_${i % GROUPS}`, period: periods[i % 3], ...big });
  for (let i = 0; i < 30; i++)
    raw.push({ id: `ses-${i}`, scope: "session", target: sessionIds[i], period: periods[i % 3], ...big });
  return parseBudgets(raw);
}

function timeChecks(budgets: Budgets, rows: SessionRow[], n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    // Sessions with their own budget come up often: they are the ones with the most budgets over them.
    const row = rows[i % 7 === 0 ? i % 30 : (i * 7919) % rows.length];
    const turnId = `trn_${i}`;
    const t0 = performance.now();
    const h = budgets.check(row, turnId);
    out.push(us(performance.now() - t0));
    if (h.held) throw new Error("no budget should hold in this bench");
  }
  return out;
}

async function main(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "oar-bench-budgets-"));
  const start = Date.parse("2026-01-01T00:00:00Z");
  const clock = new ManualClock(start);
  const list = { budgets: [] as Budget[] };
  let r = open(dir, clock, list);
  try {
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const groupId = i % 3 === 0 ? null : `grp_${i % GROUPS}`;
      ids.push(r.sessions.create({ provider: PROVIDERS[i % PROVIDERS.length], model: "m", cwd: dir, groupId }).id);
    }
    list.budgets = budgetSetting(ids);
    const step = Math.floor((90 * DAY) / TURNS);
    const t0 = performance.now();
    for (let i = 0; i < TURNS; i++) {
      r.budgets.recordTurn({
        turnId: `trn_fill_${i}`,
        sessionId: ids[(i * 31) % SESSIONS],
        usage: { inputTokens: 1200, outputTokens: 300, costUsd: 0.0123 },
      });
      void clock.set(clock.now() + step);
    }
    const fillS = (performance.now() - t0) / 1000;

    const record: number[] = [];
    for (let i = 0; i < 2_000; i++) {
      const t = performance.now();
      r.budgets.recordTurn({
        turnId: `trn_timed_${i}`,
        sessionId: ids[i % SESSIONS],
        usage: { inputTokens: 1000, outputTokens: 100, costUsd: 0.01 },
      });
      record.push(us(performance.now() - t));
    }

    // Restarted: the first check of each session reads its totals from SQLite.
    r.db.close();
    r = open(dir, clock, list);
    const sessions = r.sessions;
    const rows = ids.map((id) => sessions.get(id)!);
    const cold = timeChecks(r.budgets, rows, SESSIONS);
    timeChecks(r.budgets, rows, 5_000); // warm-up
    const warm = timeChecks(r.budgets, rows, CHECKS);
    // As wired (phase B): the turn queue's gate, which notes a hold in memory around the check.
    const gate = new BudgetHolds({
      budgets: r.budgets,
      cards: new CardStore(r.db),
      bus: new Bus(),
      clock,
      kick: () => {},
      stopQueued: () => {},
    });
    const gated: number[] = [];
    for (let i = 0; i < CHECKS; i++) {
      const row = rows[i % 7 === 0 ? i % 30 : (i * 7919) % rows.length];
      const turn = { id: `trn_g${i}`, session_id: row.id } as TurnRow;
      const t = performance.now();
      const held = gate.holds(row, turn);
      gated.push(us(performance.now() - t));
      if (held) throw new Error("no budget should hold in this bench");
    }
    const lookup: number[] = [];
    for (let i = 0; i < 10_000; i++) {
      const t = performance.now();
      sessions.get(ids[(i * 7919) % SESSIONS]);
      lookup.push(us(performance.now() - t));
    }
    const stored = (r.db.prepare("SELECT COUNT(*) AS n FROM spend").get() as { n: number }).n;
    console.log(
      `${stored} turns stored, ${list.budgets.length} budgets, ${SESSIONS} sessions; filled in ${fillS.toFixed(1)} s`,
    );
    return [
      {
        metric: `check before a turn (100 budgets, ${stored} turns stored)`,
        unit: "µs",
        summary: summarize(warm),
        target: TARGET_US,
      },
      {
        metric: "the turn queue's gate as wired (BudgetHolds.holds: check + note)",
        unit: "µs",
        summary: summarize(gated),
        target: TARGET_US,
      },
      { metric: "check, first per session after a restart (totals from SQLite)", unit: "µs", summary: summarize(cold) },
      {
        metric: "record a turn's usage (ledger row + totals, own transaction)",
        unit: "µs",
        summary: summarize(record),
      },
      { metric: "for scale: the session row lookup Turns.kick makes anyway", unit: "µs", summary: summarize(lookup) },
    ];
  } finally {
    r.db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
