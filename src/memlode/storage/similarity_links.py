"""The rows the creative consolidation cycle reads and keeps: each namespace's stored vectors
with the type and source of their memories, and the links it drew (``SIMILAR_TO`` and
``SHARES_THEME`` edges marked ``{"by": "creative"}`` in their properties).

Parameters in, plain rows out; which pairs to link is ``memlode.engine.consolidation.creative``'s.
Serves both backends (``memlode.storage.sql``); vectors come out as little-endian float32 bytes
on both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.storage.sql import dialect_of

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memlode.storage.sql import Connection

__all__ = [
    "CREATIVE_MARK",
    "delete_edges",
    "linked_by_creative",
    "max_vector_rowid",
    "memory_texts",
    "namespace_vectors",
    "vector_models",
]

# The edge property that tells the creative cycle's links from everyone else's.
CREATIVE_MARK = "creative"


def vector_models(conn: Connection, namespace: str) -> list[tuple[str, int, int]]:
    """(model, dim, rows) of the vectors stored for ``namespace``, most rows first."""
    return [
        (str(model), int(dim), int(n))
        for model, dim, n in conn.execute(
            "SELECT e.model, e.dim, count(*) FROM memory_embeddings e"
            " JOIN memories m ON m.id = e.memory_id WHERE m.namespace = ?"
            " GROUP BY e.model, e.dim ORDER BY 3 DESC, 1",
            (namespace,),
        )
    ]


def max_vector_rowid(conn: Connection, namespace: str, model: str, dim: int) -> int:
    """The newest embedding rowid of the namespace's vectors from ``model`` (0: none)."""
    row = conn.execute(
        "SELECT max(e.rowid) FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id"
        " WHERE m.namespace = ? AND e.model = ? AND e.dim = ?",
        (namespace, model, dim),
    ).fetchone()
    return int(row[0] or 0)


def namespace_vectors(
    conn: Connection, namespace: str, model: str, dim: int, skip_source: str
) -> list[Any]:
    """(embedding rowid, memory id, vector, memory type, source, session id) of the
    namespace's vectors from ``model``, leaving out memories from ``skip_source``; in rowid
    order."""
    return dialect_of(conn).fetch_vectors(
        conn,
        "SELECT e.rowid, e.memory_id, e.vector, m.memory_type, m.source, m.session_id"
        " FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id"
        " WHERE m.namespace = ? AND e.model = ? AND e.dim = ? AND m.source != ?"
        " ORDER BY e.rowid",
        (namespace, model, dim, skip_source),
    )


def memory_texts(conn: Connection, ids: Sequence[str]) -> dict[str, str]:
    """memory id -> content, for those of ``ids`` that exist."""
    out: dict[str, str] = {}
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        out.update(
            (str(i), str(c))
            for i, c in conn.execute(
                f"SELECT id, content FROM memories WHERE id IN ({marks})", chunk
            )
        )
    return out


def linked_by_creative(
    conn: Connection, namespace: str, relationship: str
) -> list[tuple[str, str, float]]:
    """(source id, target id, weight) of the creative cycle's ``relationship`` edges between
    memories of ``namespace``."""
    return [
        (str(s), str(t), float(w))
        for s, t, w in conn.execute(
            "SELECT e.source_id, e.target_id, e.weight FROM graph_edges e"
            " JOIN graph_nodes n ON n.id = e.source_id"
            " WHERE e.relationship = ? AND n.namespace = ? AND n.kind = 'memory'"
            f" AND {dialect_of(conn).json_text('e.properties', 'by')} = ?",
            (relationship, namespace, CREATIVE_MARK),
        )
    ]


def delete_edges(conn: Connection, relationship: str, pairs: Sequence[tuple[str, str]]) -> int:
    """Delete the ``relationship`` edges (source id, target id) of ``pairs``; rows deleted."""
    total = 0
    for source, target in pairs:
        total += conn.execute(
            "DELETE FROM graph_edges WHERE source_id = ? AND target_id = ? AND relationship = ?",
            (source, target, relationship),
        ).rowcount
    return total
