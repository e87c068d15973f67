"""Which stored TEXT columns hold user text, which do not and why, and who may write the former.

``USER_TEXT``: per table, the columns holding text a user or an assistant reads back; "text"
and "json" columns are redacted on write (``memlode.storage.scrub``), "derived" ones are
computed only from redacted columns. ``NOT_USER_TEXT``: every other TEXT column, with why it
cannot hold a secret. ``WRITERS``: the modules whose SQL may write a ``USER_TEXT`` column.

Read by the redaction guard's tests (``tests/e2e/safety/test_redaction_guard.py``: every TEXT
column of a freshly migrated store is in one table or the other, never both, and every
statement under ``src/`` that writes a user-text column sits in a ``WRITERS`` module) and named
by ``doctor --repair`` (``memlode.storage.rescrub``), which redacts these columns again. Not by
the writers themselves: a hook process, which imports ``scrub`` on every event, never builds
these tables.
"""

from __future__ import annotations

__all__ = ["NOT_USER_TEXT", "USER_TEXT", "WRITERS"]

# Columns holding text a user or an assistant reads back, per table. "text" and "json" columns
# are redacted on write; "derived" ones are computed only from redacted columns.
USER_TEXT: dict[str, dict[str, str]] = {
    "memories": {
        "content": "text",
        "tags": "json",
        "metadata": "json",
        "search_terms": "derived from the redacted content",
        "context_near": "derived from the redacted content of neighbouring turns",
        "context_far": "derived from the redacted content of neighbouring turns",
    },
    "sessions": {"summary": "text", "metadata": "json"},
    "graph_nodes": {"name": "text", "properties": "json"},
    "graph_edges": {"properties": "json"},
    "consolidation_log": {"details": "json"},
    "memory_archive": {
        "memory": "derived: a copy of a memories row, whose columns were redacted when stored",
        "edges": "derived: copies of graph_edges rows, redacted when stored",
    },
    "code_symbols": {
        "signature": "text",
        "doc": "text",
        "properties": "json",
    },
    "code_packages": {"version": "text"},
    "code_symbol_vectors": {"text": "text"},
}

# Every other TEXT column, with why it holds no secret: identifiers the program makes, hashes,
# timestamps, enumerations, file system paths, names of code.
_ID = "an identifier memlode makes (UUID, node id, session id)"
_TS = "a timestamp"
_HASH = "a hash"
_ENUM = "one of a fixed set of words"
_PATH = "a file system path"
_NS = "a namespace: a project's identity key or name"
_CODE = "a name in the code (identifier, module, qualified name)"
NOT_USER_TEXT: dict[str, dict[str, str]] = {
    "memories": {
        "id": _ID,
        "memory_type": _ENUM,
        "content_hash": _HASH,
        "namespace": _NS,
        "source": _ENUM,
        "session_id": _ID,
        "created_at": _TS,
        "updated_at": _TS,
        "last_accessed_at": _TS,
        "created_by": "who stored it: a user or machine name from settings (empty on SQLite)",
    },
    "memory_embeddings": {
        "memory_id": _ID,
        "model": "an embedding model's name",
        "text_hash": _HASH,
        "created_at": _TS,
    },
    "memory_tokens": {"memory_id": _ID, "model": "an embedding model's name"},
    "graph_nodes": {
        "id": _ID,
        "kind": _ENUM,
        "namespace": _NS,
        "memory_id": _ID,
        "created_at": _TS,
        "updated_at": _TS,
    },
    "graph_edges": {
        "source_id": _ID,
        "target_id": _ID,
        "relationship": _ENUM,
        "created_at": _TS,
    },
    "graph_centrality": {"node_id": _ID, "computed_at": _TS},
    "sessions": {
        "id": _ID,
        "namespace": _NS,
        "source": _ENUM,
        "started_at": _TS,
        "ended_at": _TS,
    },
    "session_seen": {"session_id": _ID, "memory_id": _ID, "seen_at": _TS},
    "session_files": {"session_id": _ID, "path": _PATH, "memory_id": _ID, "updated_at": _TS},
    "memory_decay": {"memory_id": _ID},
    "consolidation_clusters": {
        "namespace": _NS,
        "kind": _ENUM,
        "key": "what groups observations: a file path, or a command as the redacted row"
        " recorded it",
        "summary_id": _ID,
        "members": _HASH,
    },
    "memory_demotions": {"memory_id": _ID, "summary_id": _ID},
    "memory_archive": {
        "memory_id": _ID,
        "namespace": _NS,
        "archived_at": _TS,
        "reason": _ENUM,
        "embedding": "a vector's model, dimension, text hash and time",
        "extra": "decay figures and the id of a summary",
    },
    "consolidation_log": {
        "kind": _ENUM,
        "namespace": _NS,
        "started_at": _TS,
        "finished_at": _TS,
    },
    "store_settings": {
        "key": _ENUM,
        "value": "memlode's settings and caches: ranking weights, graph fingerprints, and the"
        " repo map rendered from code_symbols, whose signatures are redacted on write",
    },
    "transcript_files": {
        "path": _PATH,
        "session_id": _ID,
        "namespace": _NS,
        "provisional_uuid": _ID,
        "ingested_at": _TS,
    },
    "transcript_units": {"path": _PATH, "thread": _ID, "fingerprint": _HASH},
    "transcript_chunks": {"path": _PATH, "thread": _ID, "memory_id": _ID},
    "doc_files": {
        "namespace": _NS,
        "path": _PATH,
        "root": _PATH,
        "scope": _ENUM,
        "hash": _HASH,
        "mtime": _TS,
        "indexed_at": _TS,
    },
    "doc_chunks": {"memory_id": _ID},
    "doc_folders": {"path": _PATH, "namespace": _NS, "added_at": _TS},
    "code_dirty": {"path": _PATH, "marked_at": _TS},
    "code_symbol_vectors": {
        "node_id": _ID,
        "model": "an embedding model's name",
        "namespace": _NS,
        "text_hash": _HASH,
        "file_hash": _HASH,
        "context_hash": _HASH,
    },
    "code_files": {
        "namespace": _NS,
        "root": _PATH,
        "path": _PATH,
        "node_id": _ID,
        "language": _ENUM,
        "module": _CODE,
        "prefix": _CODE,
        "hash": _HASH,
        "status": _ENUM,
        "indexed_at": _TS,
    },
    "code_symbols": {
        "namespace": _NS,
        "node_id": _ID,
        "name": _CODE,
        "qualified_name": _CODE,
        "kind": _ENUM,
        "parent": _CODE,
        "container": _CODE,
        "visibility": _ENUM,
        "name_parts": _CODE,
    },
    "code_refs": {
        "namespace": _NS,
        "source_id": _ID,
        "kind": _ENUM,
        "name": _CODE,
        "qualifier": _CODE,
        "alias": _CODE,
        "target_id": _ID,
        "relationship": _ENUM,
    },
    "code_packages": {
        "namespace": _NS,
        "node_id": _ID,
        "ecosystem": _ENUM,
        "name": _CODE,
        "provides": "JSON list of import roots (names in the code)",
    },
    "vector_state": {"model": "an embedding model's name"},
    "schema_migrations": {"name": "a migration's file name", "applied_at": _TS},
    "derived_state": {
        "name": _ENUM,
        "built_from": "memlode's own record of a build (generations, counts)",
        "built_at": _TS,
    },
    "llm_usage": {
        "day": "a UTC date",
        "provider": _ENUM,
        "model": "a language model's name, from the settings",
    },
    "hook_events_applied": {
        "id": "an identifier a hook makes for a spooled event",
        "event": "a hook event's name",
        "applied_at": _TS,
    },
    "namespace_legacy": {
        "namespace": _NS,
        "keys": "JSON list of namespaces",
        "reason": _ENUM,
        "migrated_at": _TS,
    },
}

# The modules that may write USER_TEXT columns. Each passes the text it is given through
# ``memlode.storage.scrub`` first; what a writer makes itself (code edges' counts and line
# numbers, symbol nodes named after identifiers, context built from redacted turns) needs no
# second pass.
WRITERS = frozenset(
    {
        "memlode/storage/memories.py",
        "memlode/storage/sessions.py",
        "memlode/storage/graph.py",
        "memlode/storage/code_repo.py",
        "memlode/storage/turn_context.py",
        "memlode/storage/capture.py",
        "memlode/storage/capture_session.py",
        "memlode/storage/consolidation.py",
        "memlode/storage/archive.py",
        "memlode/storage/code_symbol_vectors.py",
        "memlode/storage/rescrub.py",  # doctor --repair: stored text redacted again
        # the PostgreSQL repositories that write the same columns (memlode.storage.postgres)
    }
)
