"""The memory row every writer inserts, and the graph rows passive capture adds beside it, on
PostgreSQL (the counterpart of ``memlode.storage.capture``; Protocol ``CaptureRows``).

Deduplication is the database's: ``INSERT ... ON CONFLICT ON CONSTRAINT memories_dedup DO
NOTHING`` on the UNIQUE (namespace, source, content_hash) constraint. Two machines storing the
same text at once both get the one row's id, whoever committed first; a check-then-insert would
let both insert. Redaction, the hash and the extra search terms follow the SQLite module's rules
(the same helpers), so both backends store the same row for the same input.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.fastjson import dumps
from memlode.storage import scrub
from memlode.storage.capture import file_node_id, index_terms
from memlode.storage.fastpath import new_id, now_ts
from memlode.textutil import content_hash, search_terms

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import psycopg

__all__ = [
    "add_edge",
    "ensure_memory_node",
    "find_by_hash",
    "insert_memory",
    "node_exists",
    "stored_hash",
    "touch",
    "update_memory_content",
    "upsert_file_node",
]

# A conflicting row deleted between our insert and our look-up leaves nothing to return: the
# insert is tried again (once is almost always enough).
_DEDUP_TRIES = 5


def find_by_hash(
    conn: psycopg.Connection[Any], namespace: str, source: str, digest: str
) -> str | None:
    """The id of the memory of ``namespace`` and ``source`` whose content hashes to ``digest``."""
    row = conn.execute(
        "SELECT id FROM memories WHERE namespace = %s AND source = %s AND content_hash = %s",
        (namespace, source, digest),
    ).fetchone()
    return str(row[0]) if row is not None else None


def insert_memory(
    conn: psycopg.Connection[Any],
    *,
    content: str,
    memory_type: str,
    importance: float,
    tags: Sequence[str],
    metadata: Mapping[str, Any] | None,
    namespace: str,
    source: str,
    session_id: str | None,
    confidence: float = 1.0,
    memory_id: str | None = None,
    created_at: str | None = None,
) -> tuple[str, bool]:
    """Insert unless the same content exists in (namespace, source); returns (id, created).

    On a duplicate the existing id comes back and nothing changes, also when the other insert
    is concurrent (the constraint decides, after waiting for the other transaction).
    """
    content = scrub.text(content)
    digest = content_hash(content)
    memory_id = memory_id or new_id()
    now = now_ts()
    created = created_at or now
    row = (
        memory_id,
        content,
        memory_type,
        importance,
        confidence,
        digest,
        dumps(list(dict.fromkeys(scrub.tags(tags))), ensure_ascii=False),
        dumps(scrub.mapping(metadata), ensure_ascii=False, sort_keys=True),
        namespace,
        source,
        session_id,
        created,
        now,
        index_terms(content, source, created),
    )
    for _ in range(_DEDUP_TRIES):
        inserted = conn.execute(
            "INSERT INTO memories (id, content, memory_type, importance, confidence,"
            " content_hash, tags, metadata, namespace, source, session_id, created_at,"
            " updated_at, search_terms)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT ON CONSTRAINT memories_dedup DO NOTHING RETURNING id",
            row,
        ).fetchone()
        if inserted is not None:
            return memory_id, True
        existing = find_by_hash(conn, namespace, source, digest)
        if existing is not None:
            return existing, False
    raise RuntimeError(f"memory {memory_id}: a duplicate kept appearing and vanishing")


def update_memory_content(
    conn: psycopg.Connection[Any], memory_id: str, content: str, metadata: Mapping[str, Any]
) -> bool:
    """Replace a memory's text and metadata (a refreshed session summary); drop its vector."""
    content = scrub.text(content)
    cur = conn.execute(
        "UPDATE memories SET content = %s, content_hash = %s, search_terms = %s,"
        " metadata = %s::jsonb, updated_at = %s WHERE id = %s",
        (
            content,
            content_hash(content),
            search_terms(content),
            dumps(scrub.mapping(metadata), ensure_ascii=False, sort_keys=True),
            now_ts(),
            memory_id,
        ),
    )
    conn.execute("DELETE FROM memory_embeddings WHERE memory_id = %s", (memory_id,))
    return cur.rowcount > 0


def stored_hash(conn: psycopg.Connection[Any], memory_id: str) -> str | None:
    """The content hash of a stored memory; None when it does not exist."""
    row = conn.execute("SELECT content_hash FROM memories WHERE id = %s", (memory_id,)).fetchone()
    return str(row[0]) if row is not None else None


def touch(conn: psycopg.Connection[Any], memory_ids: Sequence[str]) -> None:
    """Record an access: bump access_count and last_accessed_at (an id given twice counts
    twice, as on SQLite)."""
    now = now_ts()
    with conn.cursor() as cur:
        cur.executemany(
            "UPDATE memories SET access_count = access_count + 1, last_accessed_at = %s"
            " WHERE id = %s",
            [(now, memory_id) for memory_id in memory_ids],
        )


# ---- graph -----------------------------------------------------------------------------------


def node_exists(conn: psycopg.Connection[Any], node_id: str) -> bool:
    return (
        conn.execute("SELECT 1 FROM graph_nodes WHERE id = %s", (node_id,)).fetchone() is not None
    )


def ensure_memory_node(
    conn: psycopg.Connection[Any], memory_id: str, name: str, namespace: str
) -> None:
    """The memory's graph node (kind ``memory``, named by its first 80 characters)."""
    now = now_ts()
    conn.execute(
        "INSERT INTO graph_nodes (id, kind, name, namespace, memory_id, created_at, updated_at)"
        " VALUES (%s, 'memory', %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
        (memory_id, scrub.text(name[:4096])[:80], namespace, memory_id, now, now),
    )


def upsert_file_node(conn: psycopg.Connection[Any], path: str, namespace: str, name: str) -> str:
    """The file's node (kind ``file``, id ``file:<abs path>``); existing properties are kept."""
    node_id = file_node_id(path)
    now = now_ts()
    conn.execute(
        "INSERT INTO graph_nodes (id, kind, name, namespace, properties, created_at, updated_at)"
        " VALUES (%s, 'file', %s, %s, %s::jsonb, %s, %s)"
        " ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at",
        (node_id, scrub.text(name), namespace, dumps(scrub.mapping({"path": path})), now, now),
    )
    return node_id


def add_edge(
    conn: psycopg.Connection[Any],
    source_id: str,
    target_id: str,
    relationship: str,
    properties: Mapping[str, Any] | None = None,
    weight: float = 1.0,
) -> bool:
    """Add the edge unless it exists (the stored one is kept); True when added."""
    cur = conn.execute(
        "INSERT INTO graph_edges (source_id, target_id, relationship, weight, properties,"
        " created_at) VALUES (%s, %s, %s, %s, %s::jsonb, %s)"
        " ON CONFLICT ON CONSTRAINT graph_edges_unique DO NOTHING",
        (
            source_id,
            target_id,
            relationship,
            weight,
            dumps(scrub.mapping(properties), sort_keys=True),
            now_ts(),
        ),
    )
    return cur.rowcount > 0
