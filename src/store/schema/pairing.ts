// Tables of paired relays (seed §1, §6, §9 "On paired relays"; contract §5.6). A relay is on
// both ends of a pairing: the side that paired (A) keeps the relay it may call in `relays`
// with the credential; the side that gave the token (B) keeps who may call it in
// `peer_clients` with only the credential's hash. Each side can revoke its end.
export const PAIRING_SQL = `
  CREATE TABLE pairing_tokens (
    token_hash TEXT PRIMARY KEY,
    label TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER
  );

  -- Relays this relay may call (it paired with them).
  CREATE TABLE relays (
    name TEXT PRIMARY KEY COLLATE NOCASE,   -- what the owner named it; relay_tool's relay
    url TEXT NOT NULL,
    peer_name TEXT NOT NULL,                -- the name that relay gives itself
    credential TEXT NOT NULL,               -- secret: never in results, logs or output
    agents_may TEXT NOT NULL DEFAULT 'full',
    version TEXT,                           -- last version it presented
    online INTEGER NOT NULL DEFAULT 0,
    last_seen_at INTEGER,
    event_cursor INTEGER NOT NULL DEFAULT 0, -- the last of its outbox events written here
    link_lost_at INTEGER,                   -- the event link is down since (link_lost written)
    created_at INTEGER NOT NULL
  );

  -- Relays that paired with this one and may call it.
  CREATE TABLE peer_clients (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL COLLATE NOCASE,      -- the name that relay gives itself (it may pair more than once)
    credential_hash TEXT NOT NULL UNIQUE,
    label TEXT,
    version TEXT,
    last_seen_at INTEGER,
    created_at INTEGER NOT NULL
  );

  -- Paired relays unlocked in a conversation (seed §6): by the owner's mention or because an
  -- agent of that relay wrote into it. Once open, open for the rest of the conversation.
  CREATE TABLE relay_unlocks (
    session_id TEXT NOT NULL,
    relay TEXT NOT NULL COLLATE NOCASE,
    via TEXT NOT NULL,                      -- owner | agent
    at INTEGER NOT NULL,
    PRIMARY KEY (session_id, relay)
  );

  -- Conversations on paired relays that called this one: the stand-in caller every rule
  -- counts for (starter of sessions, the 4-working limit, loop count, grants, watcher, asker).
  CREATE TABLE remote_callers (
    id TEXT PRIMARY KEY,
    client TEXT NOT NULL COLLATE NOCASE,    -- peer_clients.name
    session_id TEXT NOT NULL,               -- its id on that relay
    title TEXT NOT NULL,
    model TEXT NOT NULL,
    loop_epoch INTEGER NOT NULL DEFAULT 0,  -- the owner's last message there: a newer one resets the loop count
    created_at INTEGER NOT NULL,
    UNIQUE (client, session_id)
  );

  -- Events for remote watchers, waiting for the watcher's relay to fetch them. seq is the
  -- resume cursor; rows up to what the other side confirmed are removed.
  CREATE TABLE peer_outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    client TEXT NOT NULL COLLATE NOCASE,
    watcher TEXT NOT NULL,                  -- remote_callers.id
    key TEXT NOT NULL,
    type TEXT NOT NULL,
    session_id TEXT,
    turn_id TEXT,
    line TEXT NOT NULL,
    urgent INTEGER NOT NULL,
    subs_json TEXT NOT NULL,
    sub TEXT,                               -- the first subscription it is for (the 500 cap counts per subscription)
    at INTEGER NOT NULL,
    UNIQUE (watcher, key)
  );
  CREATE INDEX peer_outbox_client ON peer_outbox(client, seq);
`;

/** Compaction moved a conversation that holds subscriptions on a paired relay
 * (pairing/compaction.ts): told = that relay has been told (on the link's next poll). */
export const PAIRING_MOVES_SQL = `
  CREATE TABLE peer_moves (
    relay TEXT NOT NULL COLLATE NOCASE,
    from_session TEXT NOT NULL,
    to_session TEXT NOT NULL,
    at INTEGER NOT NULL,
    told INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (relay, from_session)
  );
`;

/** A peer's identity is its pairing (issue 18): two relays that give themselves one name (two
 * machines with the same host name) are two pairings, and neither may take over what the
 * other's conversations set up here. Stand-ins and outbox rows were keyed by the name the
 * caller sent; they are keyed by the pairing (`peer_clients.id`) from now on, and a stand-in
 * keeps the name only to show it (`relay`). Rows of a name paired more than once go to the
 * pairing seen last (the one in use); stand-ins of a name no longer paired keep the name,
 * which no pairing id matches. */
export const PEER_IDENTITY_SQL = `
  ALTER TABLE remote_callers RENAME COLUMN client TO pairing;
  ALTER TABLE remote_callers ADD COLUMN relay TEXT NOT NULL DEFAULT '';
  UPDATE remote_callers SET relay = pairing;
  UPDATE remote_callers SET pairing = COALESCE((SELECT p.id FROM peer_clients p WHERE p.name = remote_callers.relay
    ORDER BY COALESCE(p.last_seen_at, 0) DESC, p.created_at DESC LIMIT 1), pairing);
  CREATE INDEX remote_callers_pairing ON remote_callers(pairing, created_at);
  ALTER TABLE peer_outbox RENAME COLUMN client TO pairing;
  UPDATE peer_outbox SET pairing = COALESCE((SELECT r.pairing FROM remote_callers r WHERE r.id = peer_outbox.watcher), pairing);
`;

/** Unpairings the other relay has not been told of yet (it did not answer): told again with
 * the old credential until it answers (pairing/unpair-tells.ts). */
export const PAIRING_UNPAIR_TELLS_SQL = `
  CREATE TABLE peer_unpair_tells (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL COLLATE NOCASE,      -- what the owner called the relay
    url TEXT NOT NULL,
    credential TEXT NOT NULL,               -- secret: never in results, logs or output
    created_at INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_at INTEGER NOT NULL                -- the next try, on the relay clock
  );
`;
