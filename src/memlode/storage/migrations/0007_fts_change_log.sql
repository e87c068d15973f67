-- A log of the memories whose searchable text changed (inserted, updated, deleted), so that a
-- process holding an in-memory copy of the FTS index (search/text_index.py) can apply just
-- those rows. It keeps about the last 100,000 changes: a copy older than that is rebuilt.
CREATE TABLE memories_fts_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    row INTEGER NOT NULL
);

CREATE TRIGGER memories_fts_log_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts_log (row) VALUES (new.rowid);
END;

CREATE TRIGGER memories_fts_log_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts_log (row) VALUES (old.rowid);
END;

CREATE TRIGGER memories_fts_log_au AFTER UPDATE OF content, tags, search_terms, context_near,
    context_far ON memories BEGIN
    INSERT INTO memories_fts_log (row) VALUES (old.rowid);
    INSERT INTO memories_fts_log (row) SELECT new.rowid WHERE new.rowid <> old.rowid;
END;

CREATE TRIGGER memories_fts_log_prune AFTER INSERT ON memories_fts_log
    WHEN new.seq % 1000 = 0 BEGIN
    DELETE FROM memories_fts_log WHERE seq <= new.seq - 100000;
END;
