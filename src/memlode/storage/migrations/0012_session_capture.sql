-- What passive capture keeps about a session while it runs, as rows instead of a JSON blob in
-- sessions.metadata that every tool call read and rewrote whole (storage/capture.py):
--   session_seen:  memories stored by another session that this one met again (a Read of a
--                  file read yesterday dedups to yesterday's row); the session summary lists them.
--   session_files: the last observation of each file in the session, from which the next edit
--                  of that file draws its EVOLVED_INTO edge.
-- Existing sessions keep what they had: the JSON lists move into the tables, then leave the
-- metadata.
CREATE TABLE session_seen (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    memory_id  TEXT NOT NULL,
    seen_at    TEXT NOT NULL,
    PRIMARY KEY (session_id, memory_id)
) WITHOUT ROWID;

CREATE TABLE session_files (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    path       TEXT NOT NULL,
    memory_id  TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (session_id, path)
) WITHOUT ROWID;

-- The JSON list is oldest first; its position becomes a microsecond offset so order survives.
INSERT OR IGNORE INTO session_seen (session_id, memory_id, seen_at)
SELECT s.id, j.value,
       strftime('%Y-%m-%dT%H:%M:%S', s.started_at) || printf('.%06dZ', j.key)
FROM sessions AS s, json_each(s.metadata, '$.seen') AS j
WHERE json_valid(s.metadata) AND json_type(s.metadata, '$.seen') = 'array'
  AND j.type = 'text';

INSERT OR IGNORE INTO session_files (session_id, path, memory_id, updated_at)
SELECT s.id, j.key, j.value, s.started_at
FROM sessions AS s, json_each(s.metadata, '$.files') AS j
WHERE json_valid(s.metadata) AND json_type(s.metadata, '$.files') = 'object'
  AND j.type = 'text';

UPDATE sessions SET metadata = json_remove(metadata, '$.seen', '$.files')
WHERE json_valid(metadata)
  AND (json_type(metadata, '$.seen') IS NOT NULL OR json_type(metadata, '$.files') IS NOT NULL);
