// Tables of the worktrees domain (src/worktrees/, contract §10.1). A worktree row outlives
// its folder (kept for the branch until it is merged); overlaps are remembered so each pair
// and set of paths is told once; claims and merges keep their end so a restart loses nothing.
export const WORKTREES_SQL = `
  CREATE TABLE worktrees (
    session_id TEXT PRIMARY KEY,
    repo TEXT NOT NULL,              -- the repository's main folder (real path)
    path TEXT NOT NULL,              -- the worktree's folder, under <data>/worktrees
    branch TEXT NOT NULL,
    base TEXT NOT NULL,              -- the branch it was made from (or a commit when HEAD was detached)
    base_commit TEXT NOT NULL,
    made_branch INTEGER NOT NULL DEFAULT 0,  -- the relay made the branch (only then may it delete it, once merged)
    created_at INTEGER NOT NULL,
    removed_at INTEGER,              -- its folder was removed (the branch may stay)
    merged_at INTEGER,
    merged_into TEXT,
    merged_commit TEXT,
    branch_deleted_at INTEGER
  );
  CREATE INDEX worktrees_repo ON worktrees(repo, removed_at);

  CREATE TABLE worktree_overlaps (
    repo TEXT NOT NULL,
    a TEXT NOT NULL,                 -- a session id, or 'main' (the main folder's uncommitted changes)
    b TEXT NOT NULL,                 -- a < b
    paths_key TEXT NOT NULL,         -- the sorted paths, one a line
    paths_json TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (repo, a, b, paths_key)
  );

  CREATE TABLE claims (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    repo TEXT NOT NULL,
    paths_json TEXT NOT NULL,
    note TEXT,
    created_at INTEGER NOT NULL,
    ends_at INTEGER NOT NULL,
    ended_at INTEGER,
    end_reason TEXT                  -- released | expired | archived | deleted | merged
  );
  CREATE INDEX claims_repo_live ON claims(repo, ended_at);
  CREATE INDEX claims_session_live ON claims(session_id, ended_at);

  CREATE TABLE merges (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,  -- the order asked
    id TEXT NOT NULL UNIQUE,
    repo TEXT NOT NULL,
    session_id TEXT NOT NULL,
    branch TEXT NOT NULL,
    into_branch TEXT NOT NULL,
    test TEXT,
    status TEXT NOT NULL,            -- queued | running | merged | conflict | tests_failed | refused
    result_json TEXT,                -- commit / files / tail, counts / code, error
    test_pgid INTEGER,               -- the running test's process group (ended at start-up after a crash)
    asked_at INTEGER NOT NULL,
    started_at INTEGER,
    ended_at INTEGER
  );
  CREATE INDEX merges_repo_status ON merges(repo, status, seq);
`;
