// Notifications to the owner (contract §10.3). What needs the owner is kept until it goes out
// (or stops mattering), each notification with its deliveries per channel, so a restart
// neither loses one nor sends one twice; push subscriptions and the relay's VAPID keys live
// together (a backup restored keeps the subscriptions working); action tokens as hashes only.
export const NOTIFY_SQL = `
  -- One thing that needs the owner, keyed by what it is about (card:<id>, question:<id>,
  -- turn:<id>): a key is recorded once, so nothing is notified twice.
  CREATE TABLE notify_items (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,             -- card | question | turn_error | turn_done
    session_id TEXT,
    session_title TEXT,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    card_json TEXT,                 -- { id, options: [{ id, name }] } for a card
    raised_at INTEGER NOT NULL,
    status TEXT NOT NULL,           -- waiting | sent | settled
    notification_id TEXT,
    ended_at INTEGER
  );
  CREATE INDEX notify_items_waiting ON notify_items(status, raised_at);

  CREATE TABLE notify_notifications (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL,             -- an item's kind, or gathered
    session_id TEXT,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    url TEXT NOT NULL,
    card_json TEXT,
    items INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX notify_notifications_created ON notify_notifications(created_at);

  -- One request to make: a push subscription's endpoint, the webhook or ntfy. due_at is the
  -- next attempt (null once done); an attempt moves it ahead first, so a crash mid-request
  -- retries it after start-up instead of losing it.
  CREATE TABLE notify_deliveries (
    id INTEGER PRIMARY KEY,
    notification_id TEXT NOT NULL,
    channel TEXT NOT NULL,          -- webpush | webhook | ntfy
    target TEXT NOT NULL,           -- the endpoint for webpush; the channel's name otherwise
    status TEXT NOT NULL,           -- pending | sent | failed | dropped
    attempts INTEGER NOT NULL DEFAULT 0,
    due_at INTEGER,
    last_error TEXT,
    ended_at INTEGER
  );
  CREATE INDEX notify_deliveries_due ON notify_deliveries(status, due_at);

  CREATE TABLE push_subscriptions (
    endpoint TEXT PRIMARY KEY,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );

  CREATE TABLE notify_keys (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    vapid_public TEXT NOT NULL,
    vapid_private TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );

  -- sha256 of each token: a copy of the store acts on no card.
  CREATE TABLE action_tokens (
    hash TEXT PRIMARY KEY,
    card_id TEXT NOT NULL,
    notification_id TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER
  );
  CREATE INDEX action_tokens_card ON action_tokens(card_id);
`;
