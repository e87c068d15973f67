-- Conversation memory: Claude Code transcripts ingested incrementally as turns.
-- One row per transcript file with how far it was read, one row per stored unit (a turn of a
-- thread, or a summary) with a fingerprint of its chunks, and a link per chunk memory.

CREATE TABLE transcript_files (
    path               TEXT PRIMARY KEY,   -- absolute, resolved
    session_id         TEXT,
    namespace          TEXT NOT NULL DEFAULT '',
    file_size          INTEGER NOT NULL,   -- size when last read (with any half-written tail)
    mtime_ns           INTEGER NOT NULL,
    read_offset        INTEGER NOT NULL,   -- byte offset after the last complete line read
    read_lines         INTEGER NOT NULL,   -- complete lines read
    malformed_lines    INTEGER NOT NULL DEFAULT 0,
    provisional_offset INTEGER,            -- byte offset where the provisional last turn starts
    provisional_line   INTEGER,            -- its first line (0-based)
    provisional_uuid   TEXT,               -- and that line's uuid (checked before resuming)
    prefix_malformed   INTEGER NOT NULL DEFAULT 0,  -- malformed lines before that offset
    turns              INTEGER NOT NULL DEFAULT 0,
    sidechain_turns    INTEGER NOT NULL DEFAULT 0,
    ingested_at        TEXT NOT NULL
);
CREATE INDEX idx_transcript_files_session ON transcript_files (session_id);

-- A unit is what is replaced as a whole when it changes: thread 'main' or a subagent id with
-- the turn index, or thread 'summary' with the summary's ordinal.
CREATE TABLE transcript_units (
    path        TEXT NOT NULL REFERENCES transcript_files (path) ON DELETE CASCADE,
    thread      TEXT NOT NULL,
    unit        INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,             -- sha256 of the unit's chunk texts and metadata
    provisional INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (path, thread, unit)
);

-- A memory can serve two units with identical text (dedup), so ownership is a link table:
-- a unit's memories go when no other unit links them.
CREATE TABLE transcript_chunks (
    path      TEXT NOT NULL,
    thread    TEXT NOT NULL,
    unit      INTEGER NOT NULL,
    chunk     INTEGER NOT NULL,
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    PRIMARY KEY (path, thread, unit, chunk),
    FOREIGN KEY (path, thread, unit) REFERENCES transcript_units (path, thread, unit)
        ON DELETE CASCADE
);
CREATE INDEX idx_transcript_chunks_memory ON transcript_chunks (memory_id);
