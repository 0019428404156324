// The budgets domain on its own: a real SQLite store in a temp folder (sessions made by the
// real SessionStore), the manual clock, a `budgets` setting the test holds, and a time zone.
// `restart()` opens the same store anew, as a relay started again would.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Budgets, type Hold, type ReportedUsage } from "../../src/budgets/budgets.ts";
import type { Notice } from "../../src/budgets/notices.ts";
import { parseBudgets, type Budget } from "../../src/core/budget-schema.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { newId } from "../../src/core/ids.ts";
import { Bus } from "../../src/core/bus.ts";
import { SessionStore } from "../../src/sessions/session-store.ts";
import { TaskStore } from "../../src/tasks/task-store.ts";
import { openDb, type Db } from "../../src/store/db.ts";

export class BudgetKit {
  budgetList: Budget[] = [];
  readonly notified: Notice[] = [];
  db!: Db;
  clock!: ManualClock;
  sessions!: SessionStore;
  budgets!: Budgets;

  private constructor(
    readonly dir: string,
    public zone: string,
  ) {}

  static open(opts: { at: number; zone?: string; budgets?: unknown[] }): BudgetKit {
    const kit = new BudgetKit(mkdtempSync(join(tmpdir(), "oar-budgets-")), opts.zone ?? "UTC");
    kit.boot(opts.at);
    if (opts.budgets) kit.setBudgets(opts.budgets);
    return kit;
  }

  private boot(at: number): void {
    this.db = openDb(join(this.dir, "oar.db"));
    this.clock = new ManualClock(at);
    const tasks = new TaskStore({ db: this.db, clock: this.clock, bus: new Bus(), dataDir: this.dir });
    this.sessions = new SessionStore({ db: this.db, clock: this.clock, tasks });
    this.budgets = new Budgets({
      db: this.db,
      clock: this.clock,
      settings: { get: () => this.budgetList, set: (next) => (this.budgetList = next) },
      sessionOf: (id) => this.sessions.get(id),
      timeZone: this.zone,
      onNotice: (n) => this.notified.push(n),
    });
  }

  /** The setting as the owner would PATCH it (checked as phase B's settings store will). */
  setBudgets(list: unknown[]): Budget[] {
    this.budgetList = parseBudgets(list);
    return this.budgetList;
  }

  session(provider = "scripted", groupId: string | null = null): string {
    return this.sessions.create({ provider, model: `${provider}-1`, cwd: this.dir, groupId }).id;
  }

  /** What the turn queue does for one turn: ask first; if not held, the turn runs and its
   * usage is recorded at its end. Returns whether it ran. */
  runTurn(sessionId: string, usage: ReportedUsage, turnId = newId("trn")): { ran: boolean; turnId: string } {
    if (this.check(sessionId, turnId).held) return { ran: false, turnId };
    this.budgets.recordTurn({ turnId, sessionId, usage });
    return { ran: true, turnId };
  }

  /** The check as the turn queue makes it: with the session row it has in hand. */
  check(sessionId: string, turnId?: string): Hold {
    const s = this.sessions.get(sessionId);
    return s ? this.budgets.check(s, turnId) : { held: false };
  }

  held(sessionId: string, turnId?: string): boolean {
    return this.check(sessionId, turnId).held;
  }

  async advance(ms: number): Promise<void> {
    await this.clock.advance(ms);
  }

  async set(iso: string): Promise<void> {
    await this.clock.set(Date.parse(iso));
  }

  count(from: string): number {
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM ${from}`).get() as { n: number }).n;
  }

  /** Closes the store and opens the same folder anew, as a relay started again (in another zone if given). */
  restart(opts: { zone?: string } = {}): void {
    const at = this.clock.now();
    this.db.close();
    if (opts.zone) this.zone = opts.zone;
    this.boot(at);
  }

  close(): void {
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Runs fn with a kit, closing it after. */
export async function withKit(
  opts: Parameters<typeof BudgetKit.open>[0],
  fn: (kit: BudgetKit) => Promise<void> | void,
): Promise<void> {
  const kit = BudgetKit.open(opts);
  try {
    await fn(kit);
  } finally {
    kit.close();
  }
}

/** A fixed-offset zone where it is about noon now (Etc/GMT-N is UTC+N), and its next
 * midnight (epoch ms): a relay started with `TZ` set to it is on the same local day after a
 * restart (its test clock starts at the real time again), and its day ends where a test
 * moves the clock. */
export function noonZone(now = Date.now()): { TZ: string; MIDNIGHT: number } {
  const offset = 12 - new Date(now).getUTCHours();
  const TZ = offset === 0 ? "Etc/GMT" : `Etc/GMT${offset > 0 ? "-" : "+"}${Math.abs(offset)}`;
  const local = new Date(now + offset * 3_600_000);
  const MIDNIGHT = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() + 1) - offset * 3_600_000;
  return { TZ, MIDNIGHT };
}
