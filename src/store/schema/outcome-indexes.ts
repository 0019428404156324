// For sessions/list-outcome.ts.
/** The newest ended turn and task of a session, read from the end of an index. */
export const OUTCOME_INDEXES_SQL = `
  CREATE INDEX turns_session_ended ON turns(session_id, ended_at);
  CREATE INDEX tasks_session_ended ON tasks(session_id, ended_at);
`;
