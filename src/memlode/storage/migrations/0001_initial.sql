-- The core store: memories with their FTS5 index, embeddings, the graph, sessions, the
-- consolidation log. Timestamps are ISO-8601 UTC text (fixed width, so text order = time order).

CREATE TABLE memories (
    id               TEXT PRIMARY KEY,
    content          TEXT NOT NULL CHECK (length(content) > 0),
    memory_type      TEXT NOT NULL DEFAULT 'context' CHECK (memory_type IN
                     ('decision','pattern','preference','style','habit','insight','context')),
    importance       REAL NOT NULL DEFAULT 0.5 CHECK (importance >= 0 AND importance <= 1),
    confidence       REAL NOT NULL DEFAULT 1.0 CHECK (confidence >= 0 AND confidence <= 1),
    access_count     INTEGER NOT NULL DEFAULT 0,
    content_hash     TEXT NOT NULL,
    tags             TEXT NOT NULL DEFAULT '[]',
    metadata         TEXT NOT NULL DEFAULT '{}',
    namespace        TEXT NOT NULL DEFAULT '',
    source           TEXT NOT NULL DEFAULT 'memory',
    session_id       TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    last_accessed_at TEXT,
    -- extra tokens for full-text search (identifier parts: getUserName -> get user name)
    search_terms     TEXT NOT NULL DEFAULT ''
);

-- Dedup: the same content is stored once per namespace and source.
CREATE UNIQUE INDEX idx_memories_dedup ON memories (namespace, source, content_hash);
CREATE INDEX idx_memories_ns_created ON memories (namespace, created_at);
CREATE INDEX idx_memories_type ON memories (memory_type, namespace);
CREATE INDEX idx_memories_source ON memories (source, namespace);
CREATE INDEX idx_memories_session ON memories (session_id);
CREATE INDEX idx_memories_created ON memories (created_at);

CREATE VIRTUAL TABLE memories_fts USING fts5 (
    content, tags, search_terms,
    content = 'memories', content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER memories_fts_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content, tags, search_terms)
    VALUES (new.rowid, new.content, new.tags, new.search_terms);
END;

CREATE TRIGGER memories_fts_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content, tags, search_terms)
    VALUES ('delete', old.rowid, old.content, old.tags, old.search_terms);
END;

CREATE TRIGGER memories_fts_au AFTER UPDATE OF content, tags, search_terms ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content, tags, search_terms)
    VALUES ('delete', old.rowid, old.content, old.tags, old.search_terms);
    INSERT INTO memories_fts (rowid, content, tags, search_terms)
    VALUES (new.rowid, new.content, new.tags, new.search_terms);
END;

CREATE TABLE memory_embeddings (
    memory_id  TEXT PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
    model      TEXT NOT NULL,
    dim        INTEGER NOT NULL,
    vector     BLOB NOT NULL,         -- float32, little endian, L2-normalised
    text_hash  TEXT NOT NULL,         -- hash of the enriched text that was embedded
    created_at TEXT NOT NULL
);
CREATE INDEX idx_embeddings_model ON memory_embeddings (model);

CREATE TABLE graph_nodes (
    id         TEXT PRIMARY KEY,      -- memory id, 'file:<path>', 'sym:<qualified name>', ...
    kind       TEXT NOT NULL CHECK (kind IN ('file','package','function','method','class',
               'interface','type','constant','module','memory','endpoint','test')),
    name       TEXT NOT NULL,
    namespace  TEXT NOT NULL DEFAULT '',
    memory_id  TEXT REFERENCES memories (id) ON DELETE CASCADE,
    properties TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX idx_nodes_kind ON graph_nodes (namespace, kind);
CREATE INDEX idx_nodes_memory ON graph_nodes (memory_id);
CREATE INDEX idx_nodes_name ON graph_nodes (name);

CREATE TABLE graph_edges (
    id           INTEGER PRIMARY KEY,
    source_id    TEXT NOT NULL REFERENCES graph_nodes (id) ON DELETE CASCADE,
    target_id    TEXT NOT NULL REFERENCES graph_nodes (id) ON DELETE CASCADE,
    relationship TEXT NOT NULL CHECK (relationship IN ('RELATES_TO','LEADS_TO','PART_OF',
                 'REINFORCES','CONTRADICTS','EVOLVED_INTO','DERIVED_FROM','INVALIDATED_BY',
                 'DEPENDS_ON','IMPORTS','EXTENDS','CALLS','CONTAINS','SUPERSEDES','BLOCKS',
                 'IMPLEMENTS','INHERITS','SIMILAR_TO','PRECEDED_BY','EXEMPLIFIES','EXPLAINS',
                 'SHARES_THEME','SUMMARIZES')),
    weight       REAL NOT NULL DEFAULT 1.0,
    properties   TEXT NOT NULL DEFAULT '{}',
    created_at   TEXT NOT NULL,
    UNIQUE (source_id, target_id, relationship)
);
CREATE INDEX idx_edges_target ON graph_edges (target_id, relationship);
CREATE INDEX idx_edges_rel ON graph_edges (relationship);

-- Cached centrality (derived: recomputed on demand, safe to drop).
CREATE TABLE graph_centrality (
    node_id     TEXT PRIMARY KEY REFERENCES graph_nodes (id) ON DELETE CASCADE,
    pagerank    REAL NOT NULL DEFAULT 0,
    betweenness REAL NOT NULL DEFAULT 0,
    degree      REAL NOT NULL DEFAULT 0,
    cluster     INTEGER,
    computed_at TEXT NOT NULL
);

CREATE TABLE sessions (
    id         TEXT PRIMARY KEY,
    namespace  TEXT NOT NULL DEFAULT '',
    source     TEXT NOT NULL DEFAULT 'cli',
    started_at TEXT NOT NULL,
    ended_at   TEXT,
    summary    TEXT,
    metadata   TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX idx_sessions_ns ON sessions (namespace, started_at);

CREATE TABLE consolidation_log (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,
    namespace   TEXT NOT NULL DEFAULT '',
    started_at  TEXT NOT NULL,
    finished_at TEXT,
    details     TEXT NOT NULL DEFAULT '{}'
);

-- Small key/value settings that live with the data (e.g. scoring weights set at run time).
CREATE TABLE store_settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
