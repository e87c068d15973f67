-- Forget (engine/consolidation/forget.py, opt-in): the rows the forget cycle removed, each kept
-- whole here so that `memlode consolidate restore` puts it back, until the archive's own
-- retention ends and a later forget run removes it for good.
--   memory:     the memories row, every column (JSON)
--   embedding:  its vector row's model, dim, text_hash, created_at (JSON) and the vector itself
--   edges:      the graph edges that touched its memory node (JSON list)
--   extra:      its decay bookkeeping and the summary that stood for it (JSON)
CREATE TABLE memory_archive (
    memory_id   TEXT PRIMARY KEY,
    namespace   TEXT NOT NULL,
    run_id      INTEGER NOT NULL,
    archived_at TEXT NOT NULL,
    reason      TEXT NOT NULL,
    memory      TEXT NOT NULL,
    embedding   TEXT,
    vector      BLOB,
    edges       TEXT NOT NULL DEFAULT '[]',
    extra       TEXT NOT NULL DEFAULT '{}'
) WITHOUT ROWID;
CREATE INDEX idx_memory_archive_run ON memory_archive (run_id);
CREATE INDEX idx_memory_archive_ns ON memory_archive (namespace, archived_at);

-- A summary's cluster record by its id (forget rewrites it when members leave; every delete of
-- a memory looks here for records to cascade).
CREATE INDEX idx_consolidation_clusters_summary ON consolidation_clusters (summary_id);
