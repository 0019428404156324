import { RelayError } from "../core/errors.ts";
import { URGENT, type SubRow } from "../watching/types.ts";
import { clearAnsweredMark } from "../watching/remote-echo.ts";
import { mirrorsOn, unsubscribedMirrors } from "../watching/mirror-subs.ts";
import type { PairingDeps, PeerCall } from "./deps.ts";
import type { PairingStore, RelayRow } from "./store.ts";
import { EventsAnswer, type OutboxEvent } from "./peer-protocol.ts";
import { SPEND } from "./outbox.ts";
import { PeerOffline } from "./peer-http.ts";
import type { RemoteWaits } from "./remote-waits.ts";
import { movesTold, pendingMoves, successor } from "./compaction.ts";
import { PeerClock } from "./peer-clock.ts";

// The watcher's side of events across a link (seed §9 "On paired relays"). One held request
// per paired relay (GET /peer/v1/events, a long-poll with the resume cursor `after`): the
// other relay answers the moment it has an event, so a healthy link carries one in well
// under a second. The events and the new cursor are written in one transaction, as event
// rows of the local watcher: digests, quiet hours, gathering and wake caps apply here. A
// SIGKILL before that commit fetches them again; after it, the cursor says they are here.
// The same loop keeps `online` and `version` of each paired relay current.
//
// A relay that stops answering is asked again every 250 ms for the first minute (a restart,
// an upgrade), then every second (a refused connection costs next to nothing), so its return
// is noticed within a fraction of a second. The first request after a failure, and every one
// while the link is down, asks not to be held (wait=0): the relay answers at once with what
// it kept, and link_restored is written with it. What it kept from before its return is
// replayed; what happened there after it (after the last request it did not answer, read on
// this relay's clock through peer-clock.ts) is live, with link_restored just before it.

const POLL_SECONDS = 25;
/** Retries while the other relay does not answer at all: soon after it went, and later. */
const OFFLINE_RETRY_MS = 250;
const LONG_OFFLINE_RETRY_MS = 1_000;
/** About a minute of quick retries (more when each attempt waits for its connect timeout). */
const QUICK_RETRIES = 240;
/** Retries after a refused credential or an answer that was not an event batch. */
const MAX_BACKOFF_MS = 30_000;

/** What the link uses of the relay (pairing/deps.ts). */
export type LinkDeps = Pick<PairingDeps, "db" | "clock" | "sessions" | "watch" | "remoteSpend">;

/** What it uses of the pairing: its relays, the peer request, and the remote waits (no echo). */
export interface LinkPairing {
  store: Pick<PairingStore, "relays" | "relay" | "unlocks">;
  call: PeerCall;
  waits: Pick<RemoteWaits, "has">;
}

interface Replay {
  count: number;
  held: number;
  watchers: Set<string>;
}

interface Loop {
  abort: AbortController;
  stopped: boolean;
}

export class EventLink {
  private loops = new Map<string, Loop>();
  private running = false;
  /** Relays whose link came back: events of the next fetches are marked replayed. */
  private replaying = new Map<string, Replay>();
  private peerClock = new PeerClock();

  constructor(
    private d: LinkDeps,
    private pairing: LinkPairing,
  ) {}

  start(): void {
    this.running = true;
    this.changed();
  }

  stop(): void {
    this.running = false;
    for (const l of this.loops.values()) {
      l.stopped = true;
      l.abort.abort();
    }
    this.loops.clear();
  }

  /** Pairings changed: one loop per paired relay. */
  changed(): void {
    if (!this.running) return;
    const names = new Set(this.pairing.store.relays().map((r) => r.name.toLowerCase()));
    for (const [name, l] of this.loops) {
      if (names.has(name)) continue;
      l.stopped = true;
      l.abort.abort();
      this.loops.delete(name);
    }
    for (const r of this.pairing.store.relays()) {
      const key = r.name.toLowerCase();
      if (this.loops.has(key)) continue;
      const l: Loop = { abort: new AbortController(), stopped: false };
      this.loops.set(key, l);
      void this.loop(r.name, l);
    }
  }

  /** A new subscription on that relay: its link asks for it at once. */
  poke(name: string): void {
    const l = this.loops.get(name.toLowerCase());
    if (!l) return;
    const fresh: Loop = { abort: new AbortController(), stopped: false };
    l.stopped = true;
    l.abort.abort();
    this.loops.set(name.toLowerCase(), fresh);
    void this.loop(name, fresh);
  }

  /** Mirror subscriptions this relay holds for watchers here, on that relay. */
  private mirrors(name: string): SubRow[] {
    return mirrorsOn(this.d.db, name);
  }

  private async loop(name: string, l: Loop): Promise<void> {
    let failures = 0;
    /** When that relay last did not answer (this relay's clock): what it captured later is live. */
    let lastFailure: number | null = null;
    /** The previous poll of this loop was answered: what the next held one brings is fresh. */
    let steady = false;
    while (!l.stopped && this.running) {
      const row = this.pairing.store.relay(name);
      if (!row) return;
      const subs = this.mirrors(row.name).map((s) => s.id);
      // Mirrors the owner ended here (Unsubscribe) end there too; the other side ignores repeats.
      const ended = unsubscribedMirrors(this.d.db, row.name, this.d.clock.now() - 60 * 60_000);
      // Conversations compacted here: that relay gives their stand-ins to the new ones.
      const moves = pendingMoves(this.d.db, row.name);
      const moved = moves.map((m) => `${m.from}>${m.to}`).join(",");
      const wait = failures || row.link_lost_at != null ? 0 : POLL_SECONDS;
      try {
        const answer = await this.pairing.call(
          row,
          "GET",
          `/peer/v1/events?after=${row.event_cursor}&wait=${wait}&subs=${subs.join(",")}&ended=${ended.join(",")}${moved ? `&moved=${encodeURIComponent(moved)}` : ""}${this.d.remoteSpend ? "&spend=1" : ""}`,
          undefined,
          EventsAnswer,
          {
            timeoutMs: (POLL_SECONDS + 15) * 1000,
            signal: l.abort.signal,
          },
        );
        if (l.stopped) return;
        const events = answer.events;
        if (wait && steady && events.length < 500)
          this.peerClock.observe(
            row.name,
            this.d.clock.now(),
            events.map((e) => e.at),
          );
        failures = 0;
        steady = true;
        if (moves.length) movesTold(this.d.db, row.name, moves);
        this.received(row, events, answer.subs, lastFailure);
      } catch (err) {
        // A fault here (not the link's) is shown, though it counts as a lost poll like any other.
        if (!(err instanceof RelayError) && !l.stopped) console.error(`event link to "${name}":`, err);
        if (l.stopped || !this.running) return;
        const code = err instanceof RelayError ? err.code : "";
        if (code === "REMOTE_RELAY_AUTH") {
          // Removed on the other side: what this relay watched there ends.
          this.endRelay(row.name);
        } else {
          this.lost(row);
        }
        failures++;
        steady = false;
        lastFailure = this.d.clock.now();
        const pause =
          err instanceof PeerOffline
            ? failures <= QUICK_RETRIES
              ? OFFLINE_RETRY_MS
              : LONG_OFFLINE_RETRY_MS
            : code === "REMOTE_RELAY_AUTH"
              ? MAX_BACKOFF_MS
              : Math.min(500 * 2 ** Math.min(failures, 6), MAX_BACKOFF_MS);
        // Real time: this paces the link, it is not a relay timer.
        await new Promise((r) => setTimeout(r, pause).unref());
      }
    }
  }

  /** Ends the mirrors of subscriptions on that relay (the pairing is gone). */
  endRelay(name: string): void {
    const ids = this.mirrors(name).map((s) => s.id);
    if (ids.length) this.d.watch.end(ids, "unpaired");
  }

  private lost(row: RelayRow): void {
    if (row.link_lost_at != null || !this.d.db.open) return;
    const mirrors = this.mirrors(row.name);
    if (!mirrors.length) return;
    const now = this.d.clock.now();
    const watchers = [...new Set(mirrors.map((m) => m.watcher))];
    this.d.db.transaction(() => {
      this.d.db.prepare("UPDATE relays SET link_lost_at = ? WHERE name = ?").run(now, row.name);
      for (const w of watchers) {
        this.addEvent(w, {
          key: `link_lost:${row.name}:${now}`,
          type: "link_lost",
          sessionId: null,
          turnId: null,
          urgent: false,
          subs: [],
          at: now,
          line: `${row.name} · link_lost: relay "${row.name}" stopped answering; it keeps what happens in the sessions watched there (at most 500 events per subscription, for 7 days) and they come as replayed lines when it answers again`,
        });
      }
    })();
    this.replaying.set(row.name.toLowerCase(), { count: 0, held: 0, watchers: new Set(watchers) });
    for (const w of watchers) this.d.watch.delivery.run(w);
  }

  private received(
    row: RelayRow,
    events: OutboxEvent[],
    subStates: Record<string, string | null>,
    lastFailure: number | null,
  ): void {
    if (!this.d.db.open) return;
    const key = row.name.toLowerCase();
    let replay =
      row.link_lost_at != null ? (this.replaying.get(key) ?? { count: 0, held: 0, watchers: new Set<string>() }) : null;
    const touched = new Set<string>();
    const now = this.d.clock.now();
    const watch = this.d.watch;
    const endOnce: string[] = [];
    // Spend is counted before the cursor moves past it: a crash between the two fetches it
    // again, and the ledger counts a remote turn once.
    for (const e of events) if (e.type === SPEND) this.spent(row, e);
    this.d.db.transaction(() => {
      let cursor = row.event_cursor;
      for (const e of events) {
        cursor = Math.max(cursor, e.seq);
        if (e.type === SPEND) continue;
        // The first event that happened after that relay's return ends the replay.
        if (replay && lastFailure != null && (this.peerClock.toLocal(row.name, e.at) ?? -Infinity) > lastFailure) {
          this.restored(row, replay, now, touched);
          replay = null;
        }
        const watcher = this.d.sessions.get(successor(this.d, row.name, e.watcher));
        if (!watcher || watcher.archived_at) continue;
        const subs = e.subs
          .map((id) => watch.get(id))
          .filter((s): s is SubRow => !!s && s.watcher === watcher.id && s.relay.toLowerCase() === key);
        if (e.subs.length && !subs.length) continue; // its subscription ended here
        const parsed = subs.map((s) => watch.parse(s));
        const urgent = URGENT.has(e.type) || e.urgent;
        const r = parsed.length ? watch.earliest(parsed, now, urgent) : null;
        const ready = urgent || !r?.hold;
        const line = `${row.name} · ${replay ? "replayed · " : ""}${e.line.replace(/^\[relay event\] /, "")}`;
        const eventKey = `peer:${row.name}:${e.key}`;
        // No echo (remote-waits.ts): a turn_end of a remote prompt this watcher waits on is held
        // until its reply; one of a once subscription always comes.
        const keep = parsed.some((s) => s.once);
        if (keep) clearAnsweredMark(this.d.db, watcher.id, eventKey);
        const echo = !urgent && !keep && e.type === "turn_end" && this.pairing.waits.has(watcher.id, eventKey);
        this.addEvent(watcher.id, {
          key: eventKey,
          type: e.type,
          sessionId: e.sessionId,
          turnId: null,
          urgent,
          subs: subs.map((s) => s.id),
          at: now,
          line,
          keep,
          ...(echo
            ? {
                state: "held",
                hold: r?.hold ?? null,
                holdSub: r?.hold ? r.sub.id : null,
                releaseAt: r?.at ?? now,
                echo: true,
              }
            : ready
              ? {}
              : { state: "held", hold: r!.hold, holdSub: r!.sub.id, releaseAt: r!.at }),
        });
        for (const s of parsed) if (s.once) endOnce.push(s.id);
        touched.add(watcher.id);
        if (replay) {
          replay.count++;
          if (!ready) replay.held++;
          replay.watchers.add(watcher.id);
        }
      }
      // Back: once it has sent all it kept (a short batch), link_restored closes the replay.
      if (replay && events.length < 500) this.restored(row, replay, now, touched);
      else if (replay) this.replaying.set(key, replay);
      if (cursor !== row.event_cursor)
        this.d.db.prepare("UPDATE relays SET event_cursor = ? WHERE name = ?").run(cursor, row.name);
    })();
    // Subscriptions that ended there (once, archived, unsubscribed) end here too.
    const ended = Object.entries(subStates).filter(([, why]) => why);
    for (const [id, why] of ended) watch.end([id], why as never);
    if (endOnce.length) watch.end([...new Set(endOnce)], "once");
    for (const w of touched) {
      watch.delivery.noteWatcher(w);
      watch.delivery.run(w);
    }
  }

  /** A turn run there for a conversation here reported its spend: the conversation's group
   * budget counts it (budgets' ledger, once per remote turn, however it came). Only for a
   * conversation that relay is unlocked in (it could have prompted it): that relay cannot
   * charge work to a conversation here that never talked to it. */
  private spent(row: RelayRow, e: OutboxEvent): void {
    if (!e.turnId || !e.usage || !this.d.remoteSpend) return;
    try {
      const sessionId = successor(this.d, row.name, e.watcher);
      const name = row.name.toLowerCase();
      if (!this.pairing.store.unlocks(sessionId).some((u) => u.relay.toLowerCase() === name)) return;
      this.d.remoteSpend({ relay: row.name, remoteTurn: e.turnId, sessionId, usage: e.usage });
    } catch (err) {
      console.error(`event link to "${row.name}": counting the spend of turn ${e.turnId} failed:`, err);
    }
  }

  /** link_restored closes the replay: for each watcher that had link_lost or replayed lines. */
  private restored(row: RelayRow, r: Replay, now: number, touched: Set<string>): void {
    for (const w of r.watchers) {
      this.addEvent(w, {
        key: `link_restored:${row.name}:${now}`,
        type: "link_restored",
        sessionId: null,
        turnId: null,
        urgent: false,
        subs: [],
        at: now,
        line: `${row.name} · link_restored: relay "${row.name}" answers again; ${r.count} event${r.count === 1 ? "" : "s"} replayed${r.held ? `, ${r.held} of them held by digest or quiet hours and delivered later` : ""}`,
      });
      touched.add(w);
    }
    this.d.db.prepare("UPDATE relays SET link_lost_at = NULL WHERE name = ?").run(row.name);
    this.replaying.delete(row.name.toLowerCase());
  }

  private addEvent(
    watcher: string,
    e: {
      key: string;
      type: string;
      sessionId: string | null;
      turnId: string | null;
      urgent: boolean;
      subs: string[];
      at: number;
      line: string;
      state?: "held";
      hold?: "digest" | "quiet" | null;
      holdSub?: string | null;
      releaseAt?: number | null;
      echo?: boolean;
      keep?: boolean;
    },
  ): void {
    this.d.watch.delivery.add(watcher, {
      key: e.key,
      type: e.type,
      sessionId: e.sessionId,
      turnId: e.turnId,
      line: e.line,
      urgent: e.urgent,
      subs: e.subs,
      at: e.at,
      state: e.state ?? "ready",
      hold: e.hold ?? null,
      holdSub: e.holdSub ?? null,
      releaseAt: e.releaseAt ?? null,
      echo: e.echo ?? false,
      keep: e.keep ?? true,
    });
  }
}
