-- Conversation context: a turn is understood with its neighbours. Memories from conversation
-- sources carry the text of their neighbours in the same session (distance 1 and 2), indexed
-- as their own FTS5 columns so bm25() can weigh them below the turn itself.
ALTER TABLE memories ADD COLUMN context_near TEXT NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN context_far TEXT NOT NULL DEFAULT '';

DROP TRIGGER memories_fts_ai;
DROP TRIGGER memories_fts_ad;
DROP TRIGGER memories_fts_au;
DROP TABLE memories_fts;

CREATE VIRTUAL TABLE memories_fts USING fts5 (
    content, tags, search_terms, context_near, context_far,
    content = 'memories', content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER memories_fts_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content, tags, search_terms, context_near, context_far)
    VALUES (new.rowid, new.content, new.tags, new.search_terms, new.context_near,
            new.context_far);
END;

CREATE TRIGGER memories_fts_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content, tags, search_terms, context_near,
                              context_far)
    VALUES ('delete', old.rowid, old.content, old.tags, old.search_terms, old.context_near,
            old.context_far);
END;

CREATE TRIGGER memories_fts_au AFTER UPDATE OF content, tags, search_terms, context_near,
    context_far ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content, tags, search_terms, context_near,
                              context_far)
    VALUES ('delete', old.rowid, old.content, old.tags, old.search_terms, old.context_near,
            old.context_far);
    INSERT INTO memories_fts (rowid, content, tags, search_terms, context_near, context_far)
    VALUES (new.rowid, new.content, new.tags, new.search_terms, new.context_near,
            new.context_far);
END;

INSERT INTO memories_fts (memories_fts) VALUES ('rebuild');

CREATE INDEX idx_memories_session_order ON memories (session_id, source);
