// Full-text search over messages and questions (contract §10.5): two SQLite FTS5 tables
// that read their text from the rows themselves (external content), kept in step by
// triggers on insert, update and delete, so no writer elsewhere has to remember them.
// The migration fills them from what is already stored. (The index points at the rows'
// rowids: a VACUUM, which may renumber them, would need a 'rebuild' of both tables.)
// Queried by sessions/search-index.ts.
export const SEARCH_INDEX_SQL = `
  CREATE VIRTUAL TABLE messages_fts USING fts5(text, content='messages', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2');
  CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, text) VALUES (new.rowid, new.text);
  END;
  CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
  END;
  CREATE TRIGGER messages_fts_update AFTER UPDATE OF text ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
    INSERT INTO messages_fts(rowid, text) VALUES (new.rowid, new.text);
  END;
  INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');

  CREATE VIRTUAL TABLE questions_fts USING fts5(question, detail, content='questions', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2');
  CREATE TRIGGER questions_fts_insert AFTER INSERT ON questions BEGIN
    INSERT INTO questions_fts(rowid, question, detail) VALUES (new.rowid, new.question, new.detail);
  END;
  CREATE TRIGGER questions_fts_delete AFTER DELETE ON questions BEGIN
    INSERT INTO questions_fts(questions_fts, rowid, question, detail) VALUES ('delete', old.rowid, old.question, old.detail);
  END;
  CREATE TRIGGER questions_fts_update AFTER UPDATE OF question, detail ON questions BEGIN
    INSERT INTO questions_fts(questions_fts, rowid, question, detail) VALUES ('delete', old.rowid, old.question, old.detail);
    INSERT INTO questions_fts(rowid, question, detail) VALUES (new.rowid, new.question, new.detail);
  END;
  INSERT INTO questions_fts(questions_fts) VALUES ('rebuild');
`;
