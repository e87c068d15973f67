-- Conversation memory and memory files (SQLite migrations 0002 and 0003): the ingest state of
-- transcript files (how far each was read, its units with their fingerprints, the memory each
-- unit's chunk is) and the index of docs (one row per file with the hash of what was indexed,
-- the memory each chunk is, the folders a user added). Same columns and keys as SQLite; integer
-- flags stay integers, timestamps text.

CREATE TABLE transcript_files (
    path               text COLLATE "C" PRIMARY KEY,  -- absolute, resolved
    session_id         text COLLATE "C",
    namespace          text COLLATE "C" NOT NULL DEFAULT '',
    file_size          bigint NOT NULL,   -- size when last read (with any half-written tail)
    mtime_ns           bigint NOT NULL,
    read_offset        bigint NOT NULL,   -- byte offset after the last complete line read
    read_lines         bigint NOT NULL,   -- complete lines read
    malformed_lines    bigint NOT NULL DEFAULT 0,
    provisional_offset bigint,            -- byte offset where the provisional last turn starts
    provisional_line   bigint,            -- its first line (0-based)
    provisional_uuid   text,              -- and that line's uuid (checked before resuming)
    prefix_malformed   bigint NOT NULL DEFAULT 0,  -- malformed lines before that offset
    turns              bigint NOT NULL DEFAULT 0,
    sidechain_turns    bigint NOT NULL DEFAULT 0,
    ingested_at        text COLLATE "C" NOT NULL
);
CREATE INDEX idx_transcript_files_session ON transcript_files (session_id);

CREATE TABLE transcript_units (
    path        text COLLATE "C" NOT NULL REFERENCES transcript_files (path) ON DELETE CASCADE,
    thread      text COLLATE "C" NOT NULL,
    unit        integer NOT NULL,
    fingerprint text NOT NULL,             -- sha256 of the unit's chunk texts and metadata
    provisional integer NOT NULL DEFAULT 0,
    PRIMARY KEY (path, thread, unit)
);

-- A memory can serve two units with identical text (dedup), so ownership is a link table.
CREATE TABLE transcript_chunks (
    path      text COLLATE "C" NOT NULL,
    thread    text COLLATE "C" NOT NULL,
    unit      integer NOT NULL,
    chunk     integer NOT NULL,
    memory_id text COLLATE "C" NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    PRIMARY KEY (path, thread, unit, chunk),
    FOREIGN KEY (path, thread, unit) REFERENCES transcript_units (path, thread, unit)
        ON DELETE CASCADE
);
CREATE INDEX idx_transcript_chunks_memory ON transcript_chunks (memory_id);

CREATE TABLE doc_files (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    namespace  text COLLATE "C" NOT NULL,
    path       text COLLATE "C" NOT NULL,  -- absolute path of the file as found under its root
    root       text COLLATE "C" NOT NULL,  -- absolute path of the root it was found under
    scope      text COLLATE "C" NOT NULL,  -- project | global | docs | folder
    hash       text NOT NULL,              -- sha256 of the bytes + chunker settings
    mtime      text COLLATE "C" NOT NULL,  -- the file's modification time (ISO-8601 UTC)
    size       bigint NOT NULL,
    chunks     integer NOT NULL DEFAULT 0,
    indexed_at text COLLATE "C" NOT NULL,
    UNIQUE (namespace, path)
);
CREATE INDEX idx_doc_files_root ON doc_files (root, namespace);

CREATE TABLE doc_chunks (
    file_id   bigint NOT NULL REFERENCES doc_files (id) ON DELETE CASCADE,
    chunk     integer NOT NULL,
    memory_id text COLLATE "C" NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    PRIMARY KEY (file_id, chunk)
);
CREATE INDEX idx_doc_chunks_memory ON doc_chunks (memory_id);

CREATE TABLE doc_folders (
    path      text COLLATE "C" NOT NULL,   -- absolute, resolved
    namespace text COLLATE "C" NOT NULL,
    added_at  text COLLATE "C" NOT NULL,
    PRIMARY KEY (path, namespace)
);
