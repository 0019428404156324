// Budgets (contract §10.4): the spend ledger, running totals per scope and period, the 80 %
// notices and the owner's "allow once" decisions. The ledger is the truth; `spend_totals` is
// kept in the same transaction as each ledger row, so the check on the send path reads one
// total per budget instead of summing turns, and a restart finds the totals as they were.
export const BUDGETS_SQL = `
  -- One row per turn's reported usage (source 'turn', ref = turn id) and per reply a paired
  -- relay reported back for a prompt a session here sent (source 'remote'). (source, ref) is
  -- unique: usage recorded twice counts once.
  CREATE TABLE spend (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL,             -- turn | remote
    ref TEXT NOT NULL,
    session_id TEXT,
    provider TEXT,
    group_id TEXT,                    -- the session's group when the usage was recorded
    relay TEXT,                       -- the paired relay, for a 'remote' row
    model TEXT,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost_micros INTEGER NOT NULL,     -- USD × 1e6: sums stay exact
    priced TEXT NOT NULL,             -- reported | price_table | none
    day TEXT NOT NULL,                -- YYYY-MM-DD in the relay's time zone
    at INTEGER NOT NULL,
    UNIQUE (source, ref)
  );
  CREATE INDEX spend_day ON spend(day);

  -- Running totals: scope relay|provider|group|session, target '' for relay, period_key
  -- 'd:YYYY-MM-DD', 'm:YYYY-MM' or 't'.
  CREATE TABLE spend_totals (
    scope TEXT NOT NULL,
    target TEXT NOT NULL,
    period_key TEXT NOT NULL,
    cost_micros INTEGER NOT NULL,
    tokens INTEGER NOT NULL,
    PRIMARY KEY (scope, target, period_key)
  ) WITHOUT ROWID;

  -- The 80 % notice, once per budget and period.
  CREATE TABLE budget_notices (
    id TEXT PRIMARY KEY,
    budget_id TEXT NOT NULL,
    period_key TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    dismissed_at INTEGER,
    UNIQUE (budget_id, period_key)
  );

  -- A held turn the owner let run once (the budget card's allow_once).
  CREATE TABLE budget_allowances (
    turn_id TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL
  );

  -- The time zone the day column and the totals were computed in.
  CREATE TABLE budget_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;
