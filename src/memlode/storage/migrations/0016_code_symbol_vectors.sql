-- Vectors and texts of code symbols for semantic code search (memlode.engine.code_vectors):
-- one row per symbol and model, made from the symbol's enriched text (kind, split name,
-- signature, doc, path, callers and callees, a slice of its body). Keyed by the symbol's node
-- id, which survives a re-index of its file (code_symbols rows do not), so nothing here
-- references code_symbols; rows of vanished symbols are deleted by the next embedding pass.
--   text         the text embedded; its FTS5 index (code_symbol_texts_fts) makes bodies
--                searchable by their words too
--   text_hash    SHA-256 of the text: a symbol whose text is unchanged is never embedded
--                again, and a vector is reused by any symbol with the same text
--   file_hash    the file's content hash and context_hash (neighbour names) when the text was
--                made: when both still match, the pass need not read the file again
--   dim = 0      a symbol deliberately not embedded (test code), so it is not pending
CREATE TABLE code_symbol_vectors (
    id           INTEGER PRIMARY KEY,
    node_id      TEXT NOT NULL,
    model        TEXT NOT NULL,
    namespace    TEXT NOT NULL,
    text         TEXT NOT NULL,
    text_hash    TEXT NOT NULL,
    file_hash    TEXT NOT NULL,
    context_hash TEXT NOT NULL,
    dim          INTEGER NOT NULL,
    vector       BLOB NOT NULL,
    UNIQUE (node_id, model)
);
CREATE INDEX idx_code_symbol_vectors_ns ON code_symbol_vectors (namespace, model);
CREATE INDEX idx_code_symbol_vectors_hash ON code_symbol_vectors (model, text_hash);

CREATE VIRTUAL TABLE code_symbol_texts_fts USING fts5 (
    text,
    content = 'code_symbol_vectors', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
-- Rows are written with INSERT ... ON CONFLICT DO UPDATE (never REPLACE, whose implicit delete
-- fires no trigger), so these three keep the index exact.
CREATE TRIGGER code_symbol_texts_fts_ai AFTER INSERT ON code_symbol_vectors BEGIN
    INSERT INTO code_symbol_texts_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER code_symbol_texts_fts_ad AFTER DELETE ON code_symbol_vectors BEGIN
    INSERT INTO code_symbol_texts_fts (code_symbol_texts_fts, rowid, text)
    VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER code_symbol_texts_fts_au AFTER UPDATE OF text ON code_symbol_vectors BEGIN
    INSERT INTO code_symbol_texts_fts (code_symbol_texts_fts, rowid, text)
    VALUES ('delete', old.id, old.text);
    INSERT INTO code_symbol_texts_fts (rowid, text) VALUES (new.id, new.text);
END;
