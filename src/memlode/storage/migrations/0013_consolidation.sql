-- Consolidation (engine/consolidation): what its cycles keep beside the memories.
--   memory_decay:            the importance the decay cycle started from (base) and the value it
--                            last wrote, so that an importance changed since (by the user, an
--                            update) becomes the new base instead of being decayed again.
--   consolidation_clusters:  one summary memory per group of observations (a file read again
--                            and again, a command re-run, a chain of edits to one file), with a
--                            hash of its members: a re-run rewrites a summary only when they changed.
--   memory_demotions:        the members a summary stands for; recall ranks them lower, nothing
--                            deletes them.
CREATE TABLE memory_decay (
    memory_id TEXT PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
    base      REAL NOT NULL,
    written   REAL NOT NULL
) WITHOUT ROWID;

CREATE TABLE consolidation_clusters (
    namespace  TEXT NOT NULL,
    kind       TEXT NOT NULL,
    key        TEXT NOT NULL,
    summary_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    members    TEXT NOT NULL,
    PRIMARY KEY (namespace, kind, key)
) WITHOUT ROWID;

CREATE TABLE memory_demotions (
    memory_id  TEXT PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
    summary_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX idx_memory_demotions_summary ON memory_demotions (summary_id);
