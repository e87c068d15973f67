-- Forget (SQLite migration 0014): the rows the forget cycle removed, each kept whole so that
-- `memlode consolidate restore` puts it back. The archived row, its embedding's fields, its
-- edges and its records are JSON text in the same shape as on SQLite (tags, metadata and edge
-- properties as JSON text inside it), the vector little-endian float32 bytes.
CREATE TABLE memory_archive (
    memory_id   text COLLATE "C" PRIMARY KEY,
    namespace   text COLLATE "C" NOT NULL,
    run_id      bigint NOT NULL,
    archived_at text COLLATE "C" NOT NULL,
    reason      text NOT NULL,
    memory      text NOT NULL,
    embedding   text,
    vector      bytea,
    edges       text NOT NULL DEFAULT '[]',
    extra       text NOT NULL DEFAULT '{}'
);
CREATE INDEX idx_memory_archive_run ON memory_archive (run_id);
CREATE INDEX idx_memory_archive_ns ON memory_archive (namespace, archived_at);
