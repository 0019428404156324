// Indexes for what lists and start-up read (issue 14: flat costs at 100,000 sessions).
// Partial indexes hold only the rows a query can want, so a list of the live sessions
// walks those, not the archived many, and start-up finds running work without a scan.
export const SCALE_INDEXES_SQL = `
  -- list_sessions pages: keyset on (last_activity_at, id), newest first.
  CREATE INDEX sessions_live_order ON sessions(last_activity_at, id) WHERE deleted_at IS NULL AND archived_at IS NULL;
  CREATE INDEX sessions_listed_order ON sessions(last_activity_at, id) WHERE deleted_at IS NULL;
  DROP INDEX IF EXISTS sessions_activity;
  -- group members (read_session's group, group lifetimes, the group filter).
  CREATE INDEX sessions_group ON sessions(group_id, last_activity_at) WHERE group_id IS NOT NULL;
  -- running tasks (list states), pending questions and cards (Inbox, start-up).
  CREATE INDEX tasks_running ON tasks(session_id) WHERE status = 'running';
  CREATE INDEX questions_pending ON questions(created_at) WHERE status = 'pending';
  CREATE INDEX cards_pending ON cards(created_at) WHERE status = 'pending';
  -- start-up catch-up of events (watching/recovery.ts): what ended or started lately.
  CREATE INDEX turns_ended ON turns(ended_at) WHERE ended_at IS NOT NULL;
  CREATE INDEX tasks_started ON tasks(started_at);
  CREATE INDEX tasks_ended ON tasks(ended_at) WHERE ended_at IS NOT NULL;
  CREATE INDEX questions_created ON questions(created_at);
  CREATE INDEX questions_ended ON questions(ended_at) WHERE ended_at IS NOT NULL;
  -- the newest watch events (the event sequence at start-up).
  CREATE INDEX watch_events_seq ON watch_events(seq);
  -- schedules held by loop protection (re-checked every minute; few).
  CREATE INDEX schedules_held ON schedules(held_since) WHERE ended_at IS NULL AND held_since IS NOT NULL;
`;
