// A running shell task's process group (the agent reports it): kept in the store so Kill
// session, archive or delete can still end the group after the relay restarted and took
// its worker back (the keeper holds the agent; the relay's memory is new).
export const TASKS_PGID_SQL = `ALTER TABLE tasks ADD COLUMN pgid INTEGER;`;
