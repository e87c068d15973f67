-- The core store on PostgreSQL: the logical model of SQLite migrations 0001, 0005-0009 and 0012
-- (memories, their text index and change log, embeddings with model and dim, token states, the
-- graph, sessions and their capture state, the consolidation log, settings). Transcripts, docs,
-- code, consolidation and the archive come in later migrations.
--
-- Differences from SQLite, each on purpose:
--   * Timestamps stay text in memlode's fixed-width ISO-8601 UTC format (types.format_ts), so a
--     Memory reads back identical on both backends and text order is time order. Ids, keys and
--     timestamps are COLLATE "C": compared byte by byte like SQLite's text, whatever the
--     database's locale (a linguistic collation would order and group them differently).
--   * tags and metadata are jsonb (a tag filter is `tags ? 'tag'`, served by a GIN index).
--   * SQLite's implicit rowid, which the vector and text indexes of a process key rows by, is an
--     identity column `rowid` here.
--   * The text index is a stored tsvector column with a GIN index instead of an FTS5 table kept
--     by triggers.
--   * Vectors are pgvector `vector` values. The column has no fixed dimension because models of
--     different dims may coexist (dim is recorded per row); storage/postgres/embeddings.py makes
--     one partial HNSW index per dim, on `vector::vector(dim)`, when the first vector of that
--     dim is written.
--   * created_by records who stored a memory: the connection's memlode.created_by setting (the
--     user or machine name from memlode's settings), else the database user.

CREATE EXTENSION IF NOT EXISTS vector;

-- Like FTS5's 'porter unicode61': stemmed English words, no stop words dropped.
CREATE TEXT SEARCH DICTIONARY memlode_stem (TEMPLATE = snowball, LANGUAGE = english);
CREATE TEXT SEARCH CONFIGURATION memlode_text (COPY = english);
ALTER TEXT SEARCH CONFIGURATION memlode_text
    ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
    WITH memlode_stem;

CREATE TABLE memories (
    rowid            bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id               text COLLATE "C" PRIMARY KEY,
    content          text NOT NULL CHECK (length(content) > 0),
    memory_type      text NOT NULL DEFAULT 'context' CHECK (memory_type IN
                     ('decision','pattern','preference','style','habit','insight','context')),
    importance       double precision NOT NULL DEFAULT 0.5
                     CHECK (importance >= 0 AND importance <= 1),
    confidence       double precision NOT NULL DEFAULT 1.0
                     CHECK (confidence >= 0 AND confidence <= 1),
    access_count     integer NOT NULL DEFAULT 0,
    content_hash     text COLLATE "C" NOT NULL,
    tags             jsonb NOT NULL DEFAULT '[]',
    metadata         jsonb NOT NULL DEFAULT '{}',
    namespace        text COLLATE "C" NOT NULL DEFAULT '',
    source           text COLLATE "C" NOT NULL DEFAULT 'memory',
    session_id       text COLLATE "C",
    created_at       text COLLATE "C" NOT NULL,
    updated_at       text COLLATE "C" NOT NULL,
    last_accessed_at text COLLATE "C",
    -- extra tokens for full-text search (identifier parts: getUserName -> get user name)
    search_terms     text NOT NULL DEFAULT '',
    -- the text of a conversation turn's neighbours (distance 1 and 2), weighed below the turn
    context_near     text NOT NULL DEFAULT '',
    context_far      text NOT NULL DEFAULT '',
    created_by       text COLLATE "C" NOT NULL
                     DEFAULT coalesce(nullif(current_setting('memlode.created_by', true), ''),
                                      session_user),
    text_vector      tsvector GENERATED ALWAYS AS (
                         setweight(to_tsvector('memlode_text', content), 'A')
                         || setweight(to_tsvector('memlode_text', search_terms), 'A')
                         || setweight(jsonb_to_tsvector('memlode_text', tags, '["string"]'), 'B')
                         || setweight(to_tsvector('memlode_text', context_near), 'C')
                         || setweight(to_tsvector('memlode_text', context_far), 'D')
                     ) STORED,
    -- Dedup: the same content is stored once per namespace and source. Writers insert with
    -- ON CONFLICT ON CONSTRAINT memories_dedup, never check-then-insert.
    CONSTRAINT memories_dedup UNIQUE (namespace, source, content_hash)
);
CREATE INDEX idx_memories_ns_created ON memories (namespace, created_at);
CREATE INDEX idx_memories_type ON memories (memory_type, namespace);
CREATE INDEX idx_memories_source ON memories (source, namespace);
CREATE INDEX idx_memories_session ON memories (session_id, source);
CREATE INDEX idx_memories_created ON memories (created_at);
CREATE INDEX idx_memories_created_by ON memories (created_by, namespace);
CREATE INDEX idx_memories_tags ON memories USING gin (tags jsonb_path_ops);
CREATE INDEX idx_memories_text ON memories USING gin (text_vector);

-- The memories whose searchable text changed (SQLite migration 0007): a process holding an
-- in-memory text index applies just those rows. Pruned to about the last 100,000 changes.
CREATE TABLE memories_fts_log (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    row bigint NOT NULL
);

CREATE FUNCTION memlode_log_text_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    logged bigint;
BEGIN
    -- rowid never changes, so an update logs the one row (SQLite logs a moved rowid twice)
    INSERT INTO memories_fts_log (row)
    VALUES (CASE WHEN TG_OP = 'INSERT' THEN NEW.rowid ELSE OLD.rowid END)
    RETURNING seq INTO logged;
    IF logged % 1000 = 0 THEN
        DELETE FROM memories_fts_log WHERE seq <= logged - 100000;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER memories_fts_log_ai AFTER INSERT ON memories
    FOR EACH ROW EXECUTE FUNCTION memlode_log_text_change();
CREATE TRIGGER memories_fts_log_ad AFTER DELETE ON memories
    FOR EACH ROW EXECUTE FUNCTION memlode_log_text_change();
CREATE TRIGGER memories_fts_log_au
    AFTER UPDATE OF content, tags, search_terms, context_near, context_far ON memories
    FOR EACH ROW EXECUTE FUNCTION memlode_log_text_change();

CREATE TABLE memory_embeddings (
    rowid      bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    memory_id  text COLLATE "C" PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
    model      text COLLATE "C" NOT NULL,
    dim        integer NOT NULL CHECK (dim > 0),
    vector     vector NOT NULL,       -- L2-normalised; the index is per dim (see above)
    text_hash  text NOT NULL,         -- hash of the enriched text that was embedded
    created_at text COLLATE "C" NOT NULL,
    CHECK (vector_dims(vector) = dim)
);
CREATE INDEX idx_embeddings_model_dim ON memory_embeddings (model, dim, rowid);

-- A change counter per embedding model (SQLite migration 0005): an in-memory or on-disk vector
-- index tells in one query whether it is stale.
CREATE TABLE vector_state (
    model   text COLLATE "C" PRIMARY KEY,
    version bigint NOT NULL DEFAULT 0
);

-- Token states (SQLite migration 0009): always beside an embedding of the same model.
CREATE TABLE memory_tokens (
    memory_id text COLLATE "C" PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
    model     text COLLATE "C" NOT NULL,
    states    bytea NOT NULL          -- tokens x ceil(dim / 8) bytes of sign bits
);
CREATE INDEX idx_tokens_model ON memory_tokens (model);

CREATE FUNCTION memlode_bump_vector_state() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        INSERT INTO vector_state (model, version) VALUES (OLD.model, 1)
        ON CONFLICT (model) DO UPDATE SET version = vector_state.version + 1;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO vector_state (model, version) VALUES (NEW.model, 1)
        ON CONFLICT (model) DO UPDATE SET version = vector_state.version + 1;
    END IF;
    IF TG_OP = 'DELETE' THEN
        DELETE FROM memory_tokens WHERE memory_id = OLD.memory_id;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER memory_embeddings_state AFTER INSERT OR UPDATE OR DELETE ON memory_embeddings
    FOR EACH ROW EXECUTE FUNCTION memlode_bump_vector_state();

CREATE TABLE graph_nodes (
    id         text COLLATE "C" PRIMARY KEY,  -- memory id, 'file:<path>', 'sym:<name>', ...
    kind       text COLLATE "C" NOT NULL CHECK (kind IN ('file','package','function','method',
               'class','interface','type','constant','module','memory','endpoint','test')),
    name       text NOT NULL,
    namespace  text COLLATE "C" NOT NULL DEFAULT '',
    memory_id  text COLLATE "C" REFERENCES memories (id) ON DELETE CASCADE,
    properties jsonb NOT NULL DEFAULT '{}',
    created_at text COLLATE "C" NOT NULL,
    updated_at text COLLATE "C" NOT NULL
);
CREATE INDEX idx_nodes_kind ON graph_nodes (namespace, kind);
CREATE INDEX idx_nodes_memory ON graph_nodes (memory_id);
CREATE INDEX idx_nodes_name ON graph_nodes (name);

CREATE TABLE graph_edges (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source_id    text COLLATE "C" NOT NULL REFERENCES graph_nodes (id) ON DELETE CASCADE,
    target_id    text COLLATE "C" NOT NULL REFERENCES graph_nodes (id) ON DELETE CASCADE,
    relationship text NOT NULL CHECK (relationship IN ('RELATES_TO','LEADS_TO','PART_OF',
                 'REINFORCES','CONTRADICTS','EVOLVED_INTO','DERIVED_FROM','INVALIDATED_BY',
                 'DEPENDS_ON','IMPORTS','EXTENDS','CALLS','CONTAINS','SUPERSEDES','BLOCKS',
                 'IMPLEMENTS','INHERITS','SIMILAR_TO','PRECEDED_BY','EXEMPLIFIES','EXPLAINS',
                 'SHARES_THEME','SUMMARIZES')),
    weight       double precision NOT NULL DEFAULT 1.0,
    properties   jsonb NOT NULL DEFAULT '{}',
    created_at   text COLLATE "C" NOT NULL,
    CONSTRAINT graph_edges_unique UNIQUE (source_id, target_id, relationship)
);
CREATE INDEX idx_edges_target ON graph_edges (target_id, relationship);
CREATE INDEX idx_edges_rel ON graph_edges (relationship);

-- Cached centrality (derived: recomputed on demand, safe to drop).
CREATE TABLE graph_centrality (
    node_id     text COLLATE "C" PRIMARY KEY REFERENCES graph_nodes (id) ON DELETE CASCADE,
    pagerank    double precision NOT NULL DEFAULT 0,
    betweenness double precision NOT NULL DEFAULT 0,
    degree      double precision NOT NULL DEFAULT 0,
    cluster     integer,
    computed_at text COLLATE "C" NOT NULL
);

CREATE TABLE sessions (
    id         text COLLATE "C" PRIMARY KEY,
    namespace  text COLLATE "C" NOT NULL DEFAULT '',
    source     text COLLATE "C" NOT NULL DEFAULT 'cli',
    started_at text COLLATE "C" NOT NULL,
    ended_at   text COLLATE "C",
    summary    text,
    metadata   jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX idx_sessions_ns ON sessions (namespace, started_at);

-- What passive capture keeps about a running session (SQLite migration 0012).
CREATE TABLE session_seen (
    session_id text COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    memory_id  text COLLATE "C" NOT NULL,
    seen_at    text COLLATE "C" NOT NULL,
    PRIMARY KEY (session_id, memory_id)
);

CREATE TABLE session_files (
    session_id text COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    path       text COLLATE "C" NOT NULL,
    memory_id  text COLLATE "C" NOT NULL,
    updated_at text COLLATE "C" NOT NULL,
    PRIMARY KEY (session_id, path)
);

CREATE TABLE consolidation_log (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind        text COLLATE "C" NOT NULL,
    namespace   text COLLATE "C" NOT NULL DEFAULT '',
    started_at  text COLLATE "C" NOT NULL,
    finished_at text COLLATE "C",
    details     jsonb NOT NULL DEFAULT '{}'
);

-- Small key/value settings that live with the data (e.g. scoring weights set at run time).
CREATE TABLE store_settings (
    key   text COLLATE "C" PRIMARY KEY,
    value text NOT NULL
);
