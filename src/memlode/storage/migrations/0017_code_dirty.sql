-- Files an assistant edited since the resident last re-indexed them (storage/code_dirty.py).
-- The PostToolUse hook marks a file here in the transaction that stores its edit observation
-- (one row per file, however many edits); the resident process reads the marks, re-indexes
-- the files that lie in an indexed project root (memlode.code.reindex) and deletes the marks
-- it handled, unless a newer edit marked the file again meanwhile (``marks`` moved on).
CREATE TABLE code_dirty (
    path      TEXT PRIMARY KEY,           -- absolute path, as the hook saw it
    marked_at TEXT NOT NULL,              -- the last edit's time (format of types.format_ts)
    marks     INTEGER NOT NULL DEFAULT 1  -- edits seen; a mark is cleared only at its count
) WITHOUT ROWID;
