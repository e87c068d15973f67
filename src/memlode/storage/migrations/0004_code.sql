-- Code intelligence: indexed files, their symbols (with their own FTS5 index) and references.
-- Symbols and files are also graph nodes ('sym:<namespace>:<qualified name>', 'file:<path>');
-- the graph edges between them are derived from code_refs and rebuilt when files change.

CREATE TABLE code_files (
    id         INTEGER PRIMARY KEY,
    namespace  TEXT NOT NULL,
    root       TEXT NOT NULL,                 -- absolute project root
    path       TEXT NOT NULL,                 -- relative to root, '/' separated
    node_id    TEXT NOT NULL,                 -- 'file:<absolute path>'
    language   TEXT NOT NULL,                 -- a language, or 'manifest:<kind>'
    module     TEXT NOT NULL DEFAULT '',      -- the key other files import it by
    prefix     TEXT NOT NULL DEFAULT '',      -- qualified-name prefix of its top-level symbols
    hash       TEXT NOT NULL,                 -- SHA-256 of the content
    size       INTEGER NOT NULL,
    mtime_ns   INTEGER NOT NULL,
    lines      INTEGER NOT NULL DEFAULT 0,
    status     TEXT NOT NULL DEFAULT 'ok',    -- 'ok', or why nothing was extracted
    indexed_at TEXT NOT NULL,
    UNIQUE (namespace, root, path)
);
CREATE INDEX idx_code_files_node ON code_files (node_id);

CREATE TABLE code_symbols (
    id             INTEGER PRIMARY KEY,
    file_id        INTEGER NOT NULL REFERENCES code_files (id) ON DELETE CASCADE,
    namespace      TEXT NOT NULL,
    node_id        TEXT NOT NULL UNIQUE,
    name           TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    kind           TEXT NOT NULL,
    parent         TEXT,                      -- qualified name of the enclosing symbol
    container      TEXT NOT NULL DEFAULT '',  -- class / module / file that holds it
    signature      TEXT NOT NULL DEFAULT '',
    doc            TEXT NOT NULL DEFAULT '',
    visibility     TEXT NOT NULL DEFAULT 'public',
    line_start     INTEGER NOT NULL,
    line_end       INTEGER NOT NULL,
    properties     TEXT NOT NULL DEFAULT '{}',
    -- identifier parts for search: getUserName -> get user name; HTTPServer -> http server
    name_parts     TEXT NOT NULL DEFAULT ''
);
-- lookups by qualified name go through node_id ('sym:<namespace>:<qualified name>')
CREATE INDEX idx_code_symbols_name ON code_symbols (name);
CREATE INDEX idx_code_symbols_file ON code_symbols (file_id);

CREATE VIRTUAL TABLE code_symbols_fts USING fts5 (
    name, name_parts, qualified_name, doc, signature,
    content = 'code_symbols', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- No AFTER INSERT trigger: an FTS5 insert from a trigger flushes a segment per row (five to
-- six times slower in bulk), so the repository inserts a batch of symbols and then their FTS
-- rows with one INSERT ... SELECT (storage/code_repo.py). Deletes and updates use triggers.

CREATE TRIGGER code_symbols_fts_ad AFTER DELETE ON code_symbols BEGIN
    INSERT INTO code_symbols_fts (code_symbols_fts, rowid, name, name_parts, qualified_name,
                                  doc, signature)
    VALUES ('delete', old.id, old.name, old.name_parts, old.qualified_name, old.doc,
            old.signature);
END;

CREATE TRIGGER code_symbols_fts_au AFTER UPDATE OF name, name_parts, qualified_name, doc,
    signature ON code_symbols BEGIN
    INSERT INTO code_symbols_fts (code_symbols_fts, rowid, name, name_parts, qualified_name,
                                  doc, signature)
    VALUES ('delete', old.id, old.name, old.name_parts, old.qualified_name, old.doc,
            old.signature);
    INSERT INTO code_symbols_fts (rowid, name, name_parts, qualified_name, doc, signature)
    VALUES (new.id, new.name, new.name_parts, new.qualified_name, new.doc, new.signature);
END;

-- Every reference as written (deduplicated per source), and what it resolved to. Graph edges
-- (CALLS, IMPORTS, INHERITS, EXTENDS, IMPLEMENTS, DEPENDS_ON) are aggregates of it; CONTAINS
-- edges come from code_symbols.parent.
CREATE TABLE code_refs (
    id           INTEGER PRIMARY KEY,
    file_id      INTEGER NOT NULL REFERENCES code_files (id) ON DELETE CASCADE,
    namespace    TEXT NOT NULL,
    source_id    TEXT NOT NULL,               -- node id of the referring symbol, file or package
    kind         TEXT NOT NULL,               -- call, import, inherit, extend, implement, use,
                                              -- depend
    name         TEXT NOT NULL,
    qualifier    TEXT NOT NULL DEFAULT '',    -- receiver or module (depend: version spec)
    alias        TEXT NOT NULL DEFAULT '',
    line         INTEGER NOT NULL DEFAULT 0,
    count        INTEGER NOT NULL DEFAULT 1,
    target_id    TEXT,                        -- resolved node id; NULL when not in the project
    target_file  INTEGER,                     -- code_files.id holding the target
    relationship TEXT                         -- the edge it makes; NULL for 'use'
);
-- Only two indexes: every index costs on the first (bulk) index of a project. Edges are
-- rebuilt per source with a scan, which is cheap next to the changes that cause it.
CREATE INDEX idx_code_refs_file ON code_refs (file_id);
CREATE INDEX idx_code_refs_name ON code_refs (name);

-- Packages declared by the manifests of indexed projects.
CREATE TABLE code_packages (
    file_id   INTEGER NOT NULL REFERENCES code_files (id) ON DELETE CASCADE,
    namespace TEXT NOT NULL,
    node_id   TEXT NOT NULL,                  -- 'pkg:<ecosystem>:<name>'
    ecosystem TEXT NOT NULL,
    name      TEXT NOT NULL,
    version   TEXT NOT NULL DEFAULT '',
    provides  TEXT NOT NULL DEFAULT '[]',     -- import roots other projects use (JSON list)
    PRIMARY KEY (file_id, node_id)
);
CREATE INDEX idx_code_packages_node ON code_packages (node_id);
