// The schedules table (seed §10). Due times live here so timers can be re-armed at
// start-up and times missed while the relay was down are seen at once.
export const SCHEDULES_SQL = `
  CREATE TABLE schedules (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,      -- the conversation it fires into
    set_by TEXT NOT NULL,          -- the conversation that set it (may be the same)
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    at INTEGER,                    -- the at time the agent gave, if any
    every_minutes INTEGER,         -- null for a one-off
    first_at INTEGER NOT NULL,     -- anchor of the time grid: first_at + k * every
    next_fire_at INTEGER,          -- next grid time due (null once ended)
    last_fired_at INTEGER,
    fired_count INTEGER NOT NULL DEFAULT 0,
    skipped_count INTEGER NOT NULL DEFAULT 0,
    last_turn_id TEXT,             -- the turn of the last firing (no pile-up)
    held_since INTEGER,            -- loop protection used up: firing held since
    origin_json TEXT,              -- origin of the turn that set it (hops)
    created_at INTEGER NOT NULL,
    ended_at INTEGER,
    end_reason TEXT                -- unscheduled | fired | archived | deleted
  );
  CREATE INDEX schedules_session ON schedules(session_id, ended_at);
  CREATE INDEX schedules_set_by ON schedules(set_by, ended_at);
  CREATE INDEX schedules_due ON schedules(ended_at, next_fire_at);
`;
