-- Memory files and docs: which files are indexed (with the hash that lets an unchanged file be
-- skipped), which memories hold their chunks, and the extra folders a user added.

CREATE TABLE doc_files (
    id         INTEGER PRIMARY KEY,
    namespace  TEXT NOT NULL,
    path       TEXT NOT NULL,          -- absolute path of the file as found under its root
    root       TEXT NOT NULL,          -- absolute path of the root it was found under
    scope      TEXT NOT NULL,          -- project | global | docs | folder
    hash       TEXT NOT NULL,          -- sha256 of the bytes + chunker settings
    mtime      TEXT NOT NULL,          -- the file's modification time (ISO-8601 UTC)
    size       INTEGER NOT NULL,
    chunks     INTEGER NOT NULL DEFAULT 0,
    indexed_at TEXT NOT NULL,
    UNIQUE (namespace, path)
);
CREATE INDEX idx_doc_files_root ON doc_files (root, namespace);

-- Chunks are memories (source = 'doc'). A memory can serve two files with identical text
-- (dedup), so ownership is a link table: a file's memories go when no other file links them.
CREATE TABLE doc_chunks (
    file_id   INTEGER NOT NULL REFERENCES doc_files (id) ON DELETE CASCADE,
    chunk     INTEGER NOT NULL,
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    PRIMARY KEY (file_id, chunk)
);
CREATE INDEX idx_doc_chunks_memory ON doc_chunks (memory_id);

-- Folders added with `memlode docs add DIR`, each indexed into one namespace.
CREATE TABLE doc_folders (
    path      TEXT NOT NULL,           -- absolute, resolved
    namespace TEXT NOT NULL,
    added_at  TEXT NOT NULL,
    PRIMARY KEY (path, namespace)
);
