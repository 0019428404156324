// Tables of the watching domain (seed §9). Everything a delivery depends on lives here:
// subscriptions, each captured event with its state and due time, each watcher's
// gathering window and wake-up cap. (Which prompts a watcher waits on is kept in memory:
// a restart ends every wait, and start-up releases what they held.) A SIGKILL at any
// point leaves a consistent picture that start-up resumes from.
export const WATCHING_SQL = `
  CREATE TABLE subscriptions (
    id TEXT PRIMARY KEY,
    watcher TEXT NOT NULL,
    relay TEXT NOT NULL DEFAULT 'this',
    scope TEXT NOT NULL,                    -- 'sessions' | 'all'
    sessions_json TEXT NOT NULL DEFAULT '[]',
    exclude_json TEXT NOT NULL DEFAULT '[]',
    events_json TEXT,                       -- NULL: the default events (they follow the relay's version)
    once INTEGER NOT NULL DEFAULT 0,
    match TEXT,
    stalled_minutes INTEGER NOT NULL DEFAULT 15,
    heartbeat_minutes INTEGER,
    digest_minutes INTEGER,
    quiet_json TEXT,
    created_at INTEGER NOT NULL,
    digest_anchor_at INTEGER NOT NULL,      -- the previous digest (or creation): the next is N min after
    heartbeat_due_at INTEGER,
    idle_armed INTEGER NOT NULL DEFAULT 0,  -- all_idle: a watched session worked since the last all_idle
    ended_at INTEGER,
    end_reason TEXT,
    transferred_to TEXT
  );
  CREATE INDEX subscriptions_watcher ON subscriptions(watcher, ended_at);
  CREATE INDEX subscriptions_active ON subscriptions(ended_at);

  -- One row per thing that happened, per watcher: the key (watcher, key) is what makes an
  -- event that several subscriptions receive (or a re-capture after a restart) go out once.
  -- WITHOUT ROWID keeps a watcher's events together on disk, so sending a message of a
  -- hundred events rewrites a few pages, not a hundred. "seq" orders events captured in
  -- the same millisecond.
  CREATE TABLE watch_events (
    watcher TEXT NOT NULL,
    key TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    session_id TEXT,
    turn_id TEXT,
    line TEXT NOT NULL,
    urgent INTEGER NOT NULL DEFAULT 0,
    subs_json TEXT NOT NULL DEFAULT '[]',
    at INTEGER NOT NULL,
    state TEXT NOT NULL,                    -- held | ready | sent | dropped
    hold TEXT,                              -- why it was held: digest | quiet (kept after release, for the message's lines)
    hold_sub TEXT,                          -- the subscription whose digest or quiet hours hold it
    release_at INTEGER,                     -- held: when it may go out
    echo INTEGER NOT NULL DEFAULT 0,        -- also held while the watcher waits on this turn's reply itself
    capped INTEGER NOT NULL DEFAULT 0,      -- moved to the wake-up cap digest
    keep INTEGER NOT NULL DEFAULT 0,        -- ended a once subscription: never dropped as an echo
    message_id TEXT,
    sent_at INTEGER,
    PRIMARY KEY (watcher, key)
  ) WITHOUT ROWID;
  -- Few indexes on purpose, and this one partial: it holds only what is still open, so
  -- sending an event only removes it. Queries name its condition word for word to use it.
  CREATE INDEX watch_events_open ON watch_events(watcher, state, release_at) WHERE state IN ('held', 'ready');

  -- A watcher's outbox: ready events go out as one message at window_due_at (the gathering
  -- window's close, or at once for urgent and released events), or when its turn ends.
  CREATE TABLE watchers (
    watcher TEXT PRIMARY KEY,
    window_due_at INTEGER,
    cap_anchor_at INTEGER                   -- the previous wake-up cap digest
  );

  CREATE TABLE watch_wakeups (watcher TEXT NOT NULL, at INTEGER NOT NULL);
  CREATE INDEX watch_wakeups_watcher ON watch_wakeups(watcher, at);
`;
