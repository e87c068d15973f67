"""The rows the creative consolidation cycle reads and keeps, on PostgreSQL (the counterpart of
``memlode.storage.similarity_links``; Protocol ``SimilarityLinkRows``): each namespace's vectors
(as little-endian float32 bytes, like SQLite's) with their memories' type and source, and the
links the cycle drew (edges whose properties hold ``{"by": "creative"}``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.storage.postgres.rows import vector_bytes_cursor
from memlode.storage.similarity_links import CREATIVE_MARK

if TYPE_CHECKING:
    from collections.abc import Sequence

    import psycopg

__all__ = [
    "delete_edges",
    "linked_by_creative",
    "max_vector_rowid",
    "memory_texts",
    "namespace_vectors",
    "vector_models",
]


def vector_models(conn: psycopg.Connection[Any], namespace: str) -> list[tuple[str, int, int]]:
    """(model, dim, rows) of the vectors stored for ``namespace``, most rows first."""
    rows = conn.execute(
        "SELECT e.model, e.dim, count(*) FROM memory_embeddings e"
        " JOIN memories m ON m.id = e.memory_id WHERE m.namespace = %s"
        " GROUP BY e.model, e.dim ORDER BY 3 DESC, 1",
        (namespace,),
    ).fetchall()
    return [(str(model), int(dim), int(n)) for model, dim, n in rows]


def max_vector_rowid(conn: psycopg.Connection[Any], namespace: str, model: str, dim: int) -> int:
    """The newest embedding rowid of the namespace's vectors from ``model`` (0: none)."""
    row = conn.execute(
        "SELECT max(e.rowid) FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id"
        " WHERE m.namespace = %s AND e.model = %s AND e.dim = %s",
        (namespace, model, dim),
    ).fetchone()
    return int(row[0] or 0) if row is not None else 0


def namespace_vectors(
    conn: psycopg.Connection[Any], namespace: str, model: str, dim: int, skip_source: str
) -> list[Any]:
    """(embedding rowid, memory id, vector bytes, memory type, source, session id) of the
    namespace's vectors from ``model``, leaving out memories from ``skip_source``; in rowid
    order."""
    with vector_bytes_cursor(conn) as cur:
        cur.execute(
            "SELECT e.rowid, e.memory_id, e.vector, m.memory_type, m.source, m.session_id"
            " FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id"
            " WHERE m.namespace = %s AND e.model = %s AND e.dim = %s AND m.source <> %s"
            " ORDER BY e.rowid",
            (namespace, model, dim, skip_source),
        )
        return cur.fetchall()


def memory_texts(conn: psycopg.Connection[Any], ids: Sequence[str]) -> dict[str, str]:
    """memory id -> content, for those of ``ids`` that exist."""
    if not ids:
        return {}
    rows = conn.execute(
        "SELECT id, content FROM memories WHERE id = ANY(%s)", (list(ids),)
    ).fetchall()
    return {str(i): str(c) for i, c in rows}


def linked_by_creative(
    conn: psycopg.Connection[Any], namespace: str, relationship: str
) -> list[tuple[str, str, float]]:
    """(source id, target id, weight) of the creative cycle's ``relationship`` edges between
    memories of ``namespace``."""
    rows = conn.execute(
        "SELECT e.source_id, e.target_id, e.weight FROM graph_edges e"
        " JOIN graph_nodes n ON n.id = e.source_id"
        " WHERE e.relationship = %s AND n.namespace = %s AND n.kind = 'memory'"
        " AND e.properties ->> 'by' = %s",
        (relationship, namespace, CREATIVE_MARK),
    ).fetchall()
    return [(str(s), str(t), float(w)) for s, t, w in rows]


def delete_edges(
    conn: psycopg.Connection[Any], relationship: str, pairs: Sequence[tuple[str, str]]
) -> int:
    """Delete the ``relationship`` edges (source id, target id) of ``pairs``; rows deleted."""
    total = 0
    for source, target in pairs:
        total += conn.execute(
            "DELETE FROM graph_edges WHERE source_id = %s AND target_id = %s AND relationship = %s",
            (source, target, relationship),
        ).rowcount
    return total
