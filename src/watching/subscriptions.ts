// Subscription rows and the in-memory index the capture path reads: which active
// subscriptions watch a session. The store is the truth; the index is rebuilt from it
// whenever a subscription starts or ends (rare next to events). The index holds what it
// indexes by (watcher, scope, sessions, exclusions); the rest of a subscription's row is
// read from the store the first time it is asked for (LazySub).
import { sql } from "./sql.ts";
import type { Db } from "../store/db.ts";
import { fromJson } from "../store/db.ts";
import { newId } from "../core/ids.ts";
import { DEFAULT_EVENTS, OLD_DEFAULT_EVENTS, type EndReason, type EventType, type Sub, type SubRow } from "./types.ts";
import { QuietWindow, type QuietHours } from "./quiet-hours.ts";
import type { WriteBehind } from "./write-behind.ts";

export interface NewSub {
  watcher: string;
  all: boolean;
  sessions: string[];
  exclude: string[];
  events: EventType[] | null;
  once: boolean;
  match: string | null;
  stalledMinutes: number;
  heartbeatMinutes: number | null;
  digestMinutes: number | null;
  quiet: QuietHours | null;
}

export class SubscriptionStore {
  private byId = new Map<string, Sub>();
  private bySession = new Map<string, Sub[]>();
  private allScope: Sub[] = [];
  private byWatcher = new Map<string, Sub[]>();
  private windows = new Map<string, QuietWindow>();
  /** The index is built on first use (every method that reads it asks `ensure`), which
   * Watching.start makes right after the relay begins serving: a relay holding 10,000
   * subscriptions starts without it, and no caller ever sees it unbuilt (issue 14). */
  private built = false;

  constructor(
    private db: Db,
    private oldDefaults: () => boolean,
    private wb: WriteBehind,
  ) {}

  /** Builds the index if it is not yet. */
  ensure(): void {
    if (!this.built) this.reload();
  }

  /** Writes still gathered for this turn of the event loop go to the store now. */
  flushWrites(): void {
    this.wb.flush();
  }

  /** Re-reads the active subscriptions into the index (start-up, transfers): their index
   * fields only (a relay holding 10,000 reads and parses no more at start; issue 14). */
  reload(): void {
    this.built = true;
    this.wb.flush();
    this.byId.clear();
    this.bySession.clear();
    this.byWatcher.clear();
    this.allScope = [];
    const load = (id: string) => {
      const row = this.get(id);
      if (!row) throw new Error(`Subscription ${id} is in the index but not in the store.`);
      return this.parse(row);
    };
    // Each row brings its own copy of every id: one copy each is kept (thousands of
    // subscriptions name the same few hundred sessions and watchers).
    const ids = new Map<string, string>();
    const one = (s: string) => {
      const known = ids.get(s);
      if (known !== undefined) return known;
      ids.set(s, s);
      return s;
    };
    for (const [id, watcher, all, sessions, exclude] of activeIndexRows(this.db)) {
      const excluded = exclude === null ? NO_EXCLUSIONS : new Set(fromJson<string[]>(exclude, []));
      this.index(
        new LazySub(
          id,
          one(watcher),
          all === 1,
          sessions === null ? [] : fromJson<string[]>(sessions, []).map(one),
          excluded,
          load,
        ),
      );
    }
  }

  /** Active subscriptions here with a heartbeat (start-up arms their timers). */
  withHeartbeat(): Sub[] {
    return this.activeWhere("heartbeat_minutes IS NOT NULL");
  }

  /** Active subscriptions here whose all_idle is armed (a watched session worked since the last one). */
  idleArmed(): Sub[] {
    return this.activeWhere("idle_armed = 1");
  }

  private activeWhere(cond: "heartbeat_minutes IS NOT NULL" | "idle_armed = 1"): Sub[] {
    this.wb.flush();
    const ids = sql(
      this.db,
      `SELECT id FROM subscriptions WHERE ended_at IS NULL AND relay = 'this' AND ${cond} ORDER BY created_at, rowid`,
    )
      .pluck()
      .all() as string[];
    if (!ids.length) return [];
    this.ensure();
    return ids.flatMap((id) => this.byId.get(id) ?? []);
  }

  /** A subscription just written goes into the index; the others stay as they are (a
   * subscribe costs the same with 10 or 10,000 subscriptions stored). */
  add(id: string): void {
    this.ensure();
    const row = this.get(id);
    if (!row || row.ended_at != null || this.byId.has(id)) return;
    this.index(this.parse(row));
  }

  /** An ended subscription leaves the index. */
  drop(id: string): void {
    this.ensure();
    const sub = this.byId.get(id);
    if (sub) this.unindex(sub);
  }

  private index(sub: Sub): void {
    // A subscription on a paired relay (its mirror here): that relay captures its events.
    if (!(sub instanceof LazySub) && sub.row.relay !== "this") return;
    this.byId.set(sub.id, sub);
    const own = this.byWatcher.get(sub.watcher);
    if (own) own.push(sub);
    else this.byWatcher.set(sub.watcher, [sub]);
    if (sub.all) this.allScope.push(sub);
    else
      for (const s of sub.sessions) {
        const list = this.bySession.get(s);
        if (list) list.push(sub);
        else this.bySession.set(s, [sub]);
      }
  }

  private unindex(sub: Sub): void {
    const remove = (map: Map<string, Sub[]>, key: string) => {
      const list = map.get(key);
      if (!list) return;
      const i = list.indexOf(sub);
      if (i >= 0) list.splice(i, 1);
      if (!list.length) map.delete(key);
    };
    remove(this.byWatcher, sub.watcher);
    for (const s of sub.sessions) remove(this.bySession, s);
    if (sub.all) this.allScope = this.allScope.filter((s) => s !== sub);
    this.byId.delete(sub.id);
  }

  parse(row: SubRow): Sub {
    const quiet = fromJson<QuietHours | null>(row.quiet_json, null);
    return {
      row,
      id: row.id,
      watcher: row.watcher,
      all: row.scope === "all",
      sessions: fromJson<string[]>(row.sessions_json, []),
      exclude: new Set(fromJson<string[]>(row.exclude_json, [])),
      events: new Set(
        fromJson<EventType[] | null>(row.events_json, null) ??
          (this.oldDefaults() ? OLD_DEFAULT_EVENTS : DEFAULT_EVENTS),
      ),
      once: !!row.once,
      match: row.match,
      stalledMinutes: row.stalled_minutes,
      digestMinutes: row.digest_minutes,
      quiet,
    };
  }

  /** One QuietWindow per distinct quiet_hours, so its cache serves every subscription using it. */
  window(q: QuietHours): QuietWindow {
    const k = `${q.from}|${q.to}|${q.tz}`;
    let w = this.windows.get(k);
    if (!w) this.windows.set(k, (w = new QuietWindow(q)));
    return w;
  }

  active(id: string): Sub | undefined {
    this.ensure();
    return this.byId.get(id);
  }

  /** Active subscriptions that watch this session (its own watcher's never do). */
  watching(sessionId: string): Sub[] {
    this.ensure();
    const list = this.bySession.get(sessionId);
    const out: Sub[] = list ? [...list] : [];
    for (const s of this.allScope) if (s.watcher !== sessionId && !s.exclude.has(sessionId)) out.push(s);
    return out;
  }

  ofWatcher(watcher: string): Sub[] {
    this.ensure();
    return this.byWatcher.get(watcher) ?? [];
  }

  /** Active subscriptions the watcher holds here and, as mirrors, on paired relays (except
   * `but`, a relay that counts its own): what its limit of 20 counts (contract §6). */
  held(watcher: string, but?: string): number {
    const mirrors = this.db
      .prepare(
        "SELECT COUNT(*) AS n FROM subscriptions WHERE watcher = ? AND ended_at IS NULL AND relay != 'this' AND relay != ? COLLATE NOCASE",
      )
      .get(watcher, but ?? "this") as { n: number };
    return this.ofWatcher(watcher).length + mirrors.n;
  }

  allActive(): Sub[] {
    this.ensure();
    return [...this.byId.values()];
  }

  isWatched(sessionId: string): boolean {
    this.ensure();
    if (this.bySession.has(sessionId)) return true;
    return this.allScope.some((s) => s.watcher !== sessionId && !s.exclude.has(sessionId));
  }

  hasWatchers(): boolean {
    // Asked on every bus event and by start-up's catch-up: before the index is built, the
    // store answers.
    if (!this.built)
      return (
        sql(this.db, "SELECT 1 FROM subscriptions WHERE ended_at IS NULL AND relay = 'this' LIMIT 1").get() !==
        undefined
      );
    return this.byId.size > 0;
  }

  get(id: string): SubRow | undefined {
    this.wb.flush();
    return sql(this.db, "SELECT * FROM subscriptions WHERE id = ?").get(id) as SubRow | undefined;
  }

  /** Active ones and those ended within `sinceMs`. */
  listFor(watcher: string, endedSince: number): SubRow[] {
    this.wb.flush();
    return sql(
      this.db,
      "SELECT * FROM subscriptions WHERE watcher = ? AND (ended_at IS NULL OR ended_at >= ?) ORDER BY created_at, rowid",
    ).all(watcher, endedSince) as SubRow[];
  }

  insert(n: NewSub, now: number, extra: Partial<SubRow> = {}): SubRow {
    const id = extra.id ?? newId("sub", 10);
    sql(
      this.db,
      `INSERT INTO subscriptions (id, watcher, scope, sessions_json, exclude_json, events_json, once, match,
      stalled_minutes, heartbeat_minutes, digest_minutes, quiet_json, created_at, digest_anchor_at, heartbeat_due_at, idle_armed)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id,
      n.watcher,
      n.all ? "all" : "sessions",
      JSON.stringify(n.all ? [] : n.sessions),
      JSON.stringify(n.exclude),
      n.events ? JSON.stringify(n.events) : null,
      n.once ? 1 : 0,
      n.match,
      n.stalledMinutes,
      n.heartbeatMinutes,
      n.digestMinutes,
      n.quiet ? JSON.stringify(n.quiet) : null,
      extra.created_at ?? now,
      extra.digest_anchor_at ?? now,
      extra.heartbeat_due_at !== undefined
        ? extra.heartbeat_due_at
        : n.heartbeatMinutes
          ? now + n.heartbeatMinutes * 60_000
          : null,
      extra.idle_armed ?? 0,
    );
    return this.get(id)!;
  }

  /** A `once` subscription that fired: out of the index at once, ended in the store with the
   * event's own write (write-behind). */
  endLater(sub: Sub, now: number): void {
    this.ensure();
    this.unindex(sub);
    this.wb.push(() => this.end(sub.id, "once", now));
  }

  /** Ends it (once); returns whether it was active. The caller drops it from the index after its transaction. */
  end(id: string, reason: EndReason, now: number, transferredTo: string | null = null): boolean {
    const r = sql(
      this.db,
      "UPDATE subscriptions SET ended_at = ?, end_reason = ?, transferred_to = ? WHERE id = ? AND ended_at IS NULL",
    ).run(now, reason, transferredTo, id);
    return r.changes > 0;
  }

  // The setters below keep a row already read in step with the store; a row not read yet
  // is read later from the store (after the write-behind queue is written).
  setIdleArmed(id: string, armed: boolean): void {
    const s = this.loadedRow(id);
    if (s) s.idle_armed = armed ? 1 : 0;
    this.wb.push(() => sql(this.db, "UPDATE subscriptions SET idle_armed = ? WHERE id = ?").run(armed ? 1 : 0, id));
  }

  setDigestAnchor(id: string, at: number): void {
    sql(this.db, "UPDATE subscriptions SET digest_anchor_at = ? WHERE id = ?").run(at, id);
    const s = this.loadedRow(id);
    if (s) s.digest_anchor_at = at;
  }

  /** Written with the heartbeat's own event (write-behind): both or neither survive a kill. */
  setHeartbeatDue(id: string, at: number | null): void {
    const s = this.loadedRow(id);
    if (s) s.heartbeat_due_at = at;
    this.wb.push(() => sql(this.db, "UPDATE subscriptions SET heartbeat_due_at = ? WHERE id = ?").run(at, id));
  }

  /** The row of an indexed subscription if it was read already (else undefined). */
  private loadedRow(id: string): SubRow | undefined {
    const s = this.byId.get(id);
    return s instanceof LazySub ? s.loadedRow() : s?.row;
  }
}

/** The exclusions of a subscription without any: one shared set (nothing adds to a
 * subscription's exclusions; they are set when it is made). */
const NO_EXCLUSIONS: Set<string> = new Set();

/** The index fields of every active subscription here, raw (start-up reads every active
 * subscription: 10,000 on a big relay; raw arrays of five values, not row objects of twenty
 * strings and numbers), and no string where there is nothing to parse. */
function activeIndexRows(
  db: Db,
): [id: string, watcher: string, all: number, sessions: string | null, exclude: string | null][] {
  return db
    .prepare(`SELECT id, watcher, scope = 'all', NULLIF(sessions_json, '[]'), NULLIF(exclude_json, '[]') FROM subscriptions
    WHERE ended_at IS NULL AND relay = 'this' ORDER BY created_at, rowid`)
    .raw(true)
    .all() as [string, string, number, string | null, string | null][];
}

/** A subscription of the index: what the index needs is here from the start; the rest of its
 * row (events, options, timers) is read from the store, once, when something first asks. */
class LazySub implements Sub {
  private full?: Sub;

  constructor(
    readonly id: string,
    readonly watcher: string,
    readonly all: boolean,
    readonly sessions: string[],
    readonly exclude: Set<string>,
    private load: (id: string) => Sub,
  ) {}

  private get f(): Sub {
    return (this.full ??= this.load(this.id));
  }

  loadedRow(): SubRow | undefined {
    return this.full?.row;
  }

  get row(): SubRow {
    return this.f.row;
  }
  get events(): Set<EventType> {
    return this.f.events;
  }
  get once(): boolean {
    return this.f.once;
  }
  get match(): string | null {
    return this.f.match;
  }
  get stalledMinutes(): number {
    return this.f.stalledMinutes;
  }
  get digestMinutes(): number | null {
    return this.f.digestMinutes;
  }
  get quiet(): QuietHours | null {
    return this.f.quiet;
  }
}
