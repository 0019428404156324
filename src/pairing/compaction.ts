import type { Db } from "../store/db.ts";
import type { Clock } from "../core/clock.ts";
import type { SessionRow } from "../sessions/types.ts";
import { sql } from "../store/sql.ts";
import { mirrorRelaysOf, moveMirrors as moveMirrorSubs } from "../watching/mirror-subs.ts";
import type { PairingWatch } from "./deps.ts";

// Compaction (contract §3) across a link: the new conversation takes over what the old one
// watched on paired relays, as it does here. On this relay the mirrors change watcher (their
// ids are the other relay's); the other relay is told on the link's next poll (`moved=`),
// durably (peer_moves), and gives the stand-in of the old conversation to the new one, so
// its subscriptions, grants and questions there follow. Events already on their way for the
// old conversation are read as the new one's (`successor`).

export interface CompactionDeps {
  db: Db;
  clock: Clock;
  pairing: { link: { poke(relay: string): void } };
}

/** This relay's side, inside the compaction: mirrors and unlocks move to `to`. */
export function moveMirrors(d: CompactionDeps, from: string, to: string): string[] {
  const db = d.db;
  const relays = mirrorRelaysOf(db, from);
  const now = d.clock.now();
  db.transaction(() => {
    for (const r of relays) {
      sql(
        db,
        "INSERT OR REPLACE INTO peer_moves (relay, from_session, to_session, at, told) VALUES (?, ?, ?, ?, 0)",
      ).run(r, from, to, now);
    }
    moveMirrorSubs(db, from, to);
    // The conversation goes on: relays unlocked in it stay unlocked.
    sql(
      db,
      "INSERT OR IGNORE INTO relay_unlocks (session_id, relay, via, at) SELECT ?, relay, via, at FROM relay_unlocks WHERE session_id = ?",
    ).run(to, from);
  })();
  for (const r of relays) d.pairing.link.poke(r);
  return relays;
}

/** Moves not yet told to that relay, as `from>to` pairs for the poll. */
export function pendingMoves(db: Db, relayName: string): { from: string; to: string }[] {
  return sql(
    db,
    'SELECT from_session AS "from", to_session AS "to" FROM peer_moves WHERE relay = ? AND told = 0 LIMIT 50',
  ).all(relayName) as { from: string; to: string }[];
}

export function movesTold(db: Db, relayName: string, moves: { from: string }[]): void {
  for (const m of moves)
    sql(db, "UPDATE peer_moves SET told = 1 WHERE relay = ? AND from_session = ?").run(relayName, m.from);
}

/** The conversation that now stands for `id` (itself unless compaction moved it). */
export function successor(
  d: { db: Db; sessions: { get(id: string): SessionRow | undefined } },
  relayName: string,
  id: string,
): string {
  let cur = id;
  for (let i = 0; i < 10; i++) {
    const s = d.sessions.get(cur);
    if (s && !s.archived_at) break;
    const m = sql(d.db, "SELECT to_session FROM peer_moves WHERE relay = ? AND from_session = ?").get(relayName, cur) as
      | { to_session: string }
      | undefined;
    if (!m) break;
    cur = m.to_session;
  }
  return cur;
}

/** The watched relay's side: the calling relay (that pairing) compacted `from` into `to`. Idempotent. */
export function applyMoves(
  d: { db: Db; watch: Pick<PairingWatch, "transfer"> },
  pairing: string,
  moves: { from: string; to: string }[],
): void {
  const db = d.db;
  for (const m of moves) {
    const old = sql(db, "SELECT id FROM remote_callers WHERE pairing = ? AND session_id = ?").get(pairing, m.from) as
      | { id: string }
      | undefined;
    if (!old) continue;
    const taken = sql(db, "SELECT id FROM remote_callers WHERE pairing = ? AND session_id = ?").get(pairing, m.to) as
      | { id: string }
      | undefined;
    if (!taken) sql(db, "UPDATE remote_callers SET session_id = ? WHERE id = ?").run(m.to, old.id);
    else d.watch.transfer(old.id, taken.id, "transferred");
  }
}
