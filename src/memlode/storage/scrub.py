"""The storage layer's redaction choke point: every text a writer stores passes through here.

Each function of ``memlode.storage`` that writes a column a user or an assistant can read
(``USER_TEXT`` below), and the hooks' lean writer ``memlode.hooks._store``, runs the value
through ``text``, ``tags`` or ``mapping`` before binding it, and computes anything derived from
it (the content hash that deduplicates, the extra search terms, a node's name) from the
redacted value. Code outside the storage layer never writes those columns itself: it calls a
storage function.

Two tests keep it that way (``tests/e2e/safety/test_redaction_guard.py``): every TEXT column of a
freshly migrated store must be in ``USER_TEXT`` or in ``NOT_USER_TEXT`` (with why it cannot
hold a secret), so a new column cannot arrive without a decision; and every SQL statement under
``src/`` that writes a ``USER_TEXT`` column must sit in one of the ``WRITERS`` modules. A third
runs every write path (hooks, transcript ingest, CLI, docs indexing, import) with planted
secrets and finds none of them in any table, the hook log or an export.

Import-light: the hooks import it on every event, and every repository that writes imports it,
so a command that only reads (``memlode search``) imports it too. ``memlode.redact`` (its rules,
a few milliseconds of imports) is therefore loaded by the first value redacted, not by this
module: a process that writes nothing never loads it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

__all__ = [
    "NOT_USER_TEXT",
    "USER_TEXT",
    "WRITERS",
    "mapping",
    "optional_text",
    "tags",
    "text",
    "texts",
]

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

# The modules that may write USER_TEXT columns. Each passes the text it is given through this
# module first; what a writer makes itself (code edges' counts and line numbers, symbol nodes
# named after identifiers, context built from redacted turns) needs no second pass.
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


_redact: Any = None  # memlode.redact, once a value has been redacted (see the module)


def _rules() -> Any:
    """``memlode.redact``, imported on first use."""
    global _redact
    if _redact is None:
        import memlode.redact

        _redact = memlode.redact
    return _redact


def text(value: str) -> str:
    """A text column's value, redacted."""
    redacted: str = _rules().redact(value)
    return redacted


def texts(values: Sequence[str]) -> list[str]:
    """Many text columns' values (a batch of rows), redacted: ``[text(v) for v in values]``,
    cheaper when they are many and short."""
    redacted: list[str] = _rules().redact_many(values)
    return redacted


def optional_text(value: str | None) -> str | None:
    return text(value) if value else value


def tags(values: Iterable[str]) -> list[str]:
    """A memory's tags, redacted one by one (``cmd:PGPASSWORD=…`` keeps its name, not its value)."""
    redact = _rules().redact
    return [redact(str(tag)) for tag in values]


def mapping(value: Mapping[str, Any] | None) -> dict[str, Any]:
    """A JSON object column (metadata, properties): every string redacted, and the whole value
    of a secret's key (``{"password": "x"}``)."""
    redacted: dict[str, Any] = _rules().redact_mapping(value or {})
    return redacted
