// Schema migrations by name, applied once each in list order (store/db.ts). Never edit a
// shipped migration: add a new entry (a domain keeps its tables' SQL in store/schema/<domain>.ts,
// where the store reads it without importing the domain, and adds one line here).
import { SCHEDULES_SQL } from "./schema/schedules.ts";
import { WATCHING_SQL } from "./schema/watching.ts";
import { SCALE_INDEXES_SQL } from "./scale-indexes.ts";
import { PAIRING_SQL, PAIRING_MOVES_SQL, PEER_IDENTITY_SQL, PAIRING_UNPAIR_TELLS_SQL } from "./schema/pairing.ts";
import { TASKS_PGID_SQL } from "./schema/tasks.ts";
import { SEARCH_INDEX_SQL } from "./schema/search-index.ts";
import { OUTCOME_INDEXES_SQL } from "./schema/outcome-indexes.ts";
import { NOTIFY_SQL } from "./schema/notify.ts";
import { BUDGETS_SQL } from "./schema/budgets.ts";
import { WORKTREES_SQL } from "./schema/worktrees.ts";

export interface Migration {
  name: string;
  sql: string;
}

const CORE = `
  CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);

  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    effort TEXT,
    mode TEXT NOT NULL DEFAULT 'agent',
    cwd TEXT NOT NULL,
    repo TEXT,
    branch TEXT,
    agent_token TEXT NOT NULL UNIQUE,
    via_session TEXT,
    may_create_sessions INTEGER NOT NULL DEFAULT 0,
    group_id TEXT,
    acp_session_id TEXT,
    extra_json TEXT NOT NULL DEFAULT '{}',
    message_count INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    last_activity_at INTEGER NOT NULL,
    archived_at INTEGER,
    deleted_at INTEGER
  );
  CREATE INDEX sessions_via ON sessions(via_session);
  CREATE INDEX sessions_activity ON sessions(last_activity_at);

  CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    text TEXT NOT NULL,
    from_json TEXT,
    meta_json TEXT,
    turn_id TEXT,
    created_at INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX messages_session_seq ON messages(session_id, seq);

  CREATE TABLE turns (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    status TEXT NOT NULL,
    mode TEXT,
    model TEXT,
    from_session TEXT,
    origin_json TEXT,
    reply_text TEXT,
    reply_message_id TEXT,
    error TEXT,
    queued_at INTEGER NOT NULL,
    started_at INTEGER,
    ended_at INTEGER
  );
  CREATE INDEX turns_session_status ON turns(session_id, status);
  CREATE INDEX turns_status ON turns(status);

  CREATE TABLE tasks (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    type TEXT NOT NULL,
    description TEXT NOT NULL,
    status TEXT NOT NULL,
    exit_code INTEGER,
    output_path TEXT,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    last_output_at INTEGER
  );
  CREATE INDEX tasks_session ON tasks(session_id);

  CREATE TABLE groups (
    id TEXT PRIMARY KEY,
    name TEXT,
    head_session TEXT,
    created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    dissolved_at INTEGER
  );

  CREATE TABLE cards (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    action TEXT,
    relay TEXT,
    target_session TEXT,
    text TEXT NOT NULL,
    details_json TEXT NOT NULL DEFAULT '{}',
    options_json TEXT,
    status TEXT NOT NULL,
    decision_json TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER,
    decided_at INTEGER
  );
  CREATE INDEX cards_session_status ON cards(session_id, status);

  -- Questions waiting for the owner: an agent's ask_user card (blocks its turn) or a
  -- non-blocking ask (seed §11). Both show in the Inbox.
  CREATE TABLE questions (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    session_id TEXT NOT NULL,
    asked_by TEXT,
    turn_id TEXT,
    question TEXT NOT NULL,
    options_json TEXT NOT NULL DEFAULT '[]',
    recommendation TEXT,
    detail TEXT,
    status TEXT NOT NULL,
    answer TEXT,
    choice TEXT,
    via TEXT,
    created_at INTEGER NOT NULL,
    ended_at INTEGER
  );
  CREATE INDEX questions_session_status ON questions(session_id, status);

  CREATE TABLE grants (
    session_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    relay TEXT NOT NULL DEFAULT 'this',
    value INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (session_id, kind, relay)
  );
  `;

export const MIGRATIONS: Migration[] = [
  { name: "001-core", sql: CORE },
  { name: "005-watching", sql: WATCHING_SQL },
  { name: "006-schedules", sql: SCHEDULES_SQL },
  { name: "010-scale-indexes", sql: SCALE_INDEXES_SQL },
  { name: "011-pairing", sql: PAIRING_SQL },
  { name: "011-pairing-moves", sql: PAIRING_MOVES_SQL },
  { name: "012-tasks-pgid", sql: TASKS_PGID_SQL },
  // When a turn's prompt went to its agent: a turn running at a crash whose prompt never did
  // (its worker was starting, or waiting for room under maxWorkers) runs again after the start.
  { name: "013-turns-prompted", sql: "ALTER TABLE turns ADD COLUMN prompted_at INTEGER;" },
  // Stand-ins and the peer outbox keyed by the pairing, not the name a peer sends (issue 18).
  { name: "014-peer-identity", sql: PEER_IDENTITY_SQL },
  // Unpairings the other relay has not been told of yet, told until it answers (issue 18).
  { name: "015-pairing-unpair-tells", sql: PAIRING_UNPAIR_TELLS_SQL },
  // Notifications to the owner, push subscriptions, VAPID keys, action tokens (contract §10.3).
  { name: "022-notify", sql: NOTIFY_SQL },
  // Full-text search over messages and questions (contract §10.5), filled from what is stored.
  { name: "023-search-index", sql: SEARCH_INDEX_SQL },
  { name: "023-outcome-indexes", sql: OUTCOME_INDEXES_SQL },
  // Budgets: spend ledger, running totals, 80 % notices, allow-once (contract §10.4).
  { name: "024-budgets", sql: BUDGETS_SQL },
  // Worktrees, overlaps, claims and the merge queue (issue 20, contract §10.1).
  { name: "025-worktrees", sql: WORKTREES_SQL },
  // The certificate a pairing pinned (contract §10.3): its SHA-256 fingerprint, for the link and its unpair tell.
  {
    name: "026-relay-cert-pin",
    sql: "ALTER TABLE relays ADD COLUMN cert_pin TEXT; ALTER TABLE peer_unpair_tells ADD COLUMN cert_pin TEXT;",
  },
];
