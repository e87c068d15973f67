"""Stored vectors (``memory_embeddings``) and token states (``memory_tokens``) on PostgreSQL:
counts per model, the rows still to embed, the writes of a batch, the relationships a memory's
text is enriched with (the counterpart of ``memlode.storage.embeddings``; Protocol
``EmbeddingRows``).

Vectors arrive and leave as SQLite stores them (little-endian float32 bytes, L2-normalised) and
are kept as pgvector ``vector`` values. The column has no fixed dimension (models of different
dims may coexist), so the HNSW index is per dim: a partial index on ``vector::vector(dim)``
``WHERE dim = <dim>``, made by ``ensure_vector_index`` in the transaction that writes the first
vector of that dim (under an advisory lock, so two writers never race to make it). Inner product
serves as the distance: the vectors are normalised, so it orders like cosine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.storage.capture import SUMMARY_SOURCE

if TYPE_CHECKING:
    from collections.abc import Sequence

    import psycopg

__all__ = [
    "change_marks",
    "delete_vectors",
    "ensure_vector_index",
    "memory_count",
    "models",
    "relationships_of",
    "rows_by_model",
    "rows_to_embed",
    "vector_index_name",
    "write_states",
    "write_vectors",
]


def memory_count(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute("SELECT count(*) FROM memories").fetchone()
    return int(row[0]) if row is not None else 0


def change_marks(conn: psycopg.Connection[Any], model: str) -> tuple[Any, Any]:
    """What moves when a memory's text changes (the text change log's last sequence) or the
    model's vectors do (``vector_state``; None before its first vector): both one indexed
    lookup."""
    seq = conn.execute("SELECT coalesce(max(seq), 0) FROM memories_fts_log").fetchone()
    state = conn.execute("SELECT version FROM vector_state WHERE model = %s", (model,)).fetchone()
    return (seq[0] if seq is not None else 0), (state[0] if state is not None else None)


def rows_by_model(conn: psycopg.Connection[Any], table: str, model: str) -> int:
    """Rows of ``memory_embeddings`` or ``memory_tokens`` made by ``model`` (an index count)."""
    if table not in ("memory_embeddings", "memory_tokens"):
        raise ValueError(f"not a table of vectors: {table}")
    row = conn.execute(f"SELECT count(*) FROM {table} WHERE model = %s", (model,)).fetchone()
    return int(row[0]) if row is not None else 0


def relationships_of(conn: psycopg.Connection[Any], ids: Sequence[str]) -> list[tuple[Any, ...]]:
    """(memory id, edge id, relationship, name of the other end, whether the other end is a
    memory consolidation derived: 0 or 1) of every edge touching one of ``ids``, by memory then
    edge id."""
    if not ids:
        return []
    wanted = list(ids)
    return conn.execute(
        "SELECT x.memory_id, x.edge_id, x.relationship, n.name,"
        " coalesce(o.source = %s, false)::int FROM ("
        " SELECT source_id AS memory_id, id AS edge_id, relationship, target_id AS other"
        " FROM graph_edges WHERE source_id = ANY(%s) UNION ALL"
        " SELECT target_id, id, relationship, source_id"
        " FROM graph_edges WHERE target_id = ANY(%s)"
        ") x JOIN graph_nodes n ON n.id = x.other"
        " LEFT JOIN memories AS o ON o.id = n.memory_id ORDER BY x.memory_id, x.edge_id",
        (SUMMARY_SOURCE, wanted, wanted),
    ).fetchall()


def rows_to_embed(
    conn: psycopg.Connection[Any], model: str, below: int, take: int, *, states_only: bool
) -> list[Any]:
    """Up to ``take`` memories (rowid, id, content, memory_type, namespace, tags as JSON text)
    below rowid ``below`` (any, when negative), newest first, that have no vector from ``model``
    (with ``states_only``: that have one but no token states from it)."""
    missing = (
        " AND EXISTS (SELECT 1 FROM memory_embeddings e WHERE e.memory_id = m.id"
        " AND e.model = %s) AND NOT EXISTS"
        " (SELECT 1 FROM memory_tokens t WHERE t.memory_id = m.id AND t.model = %s)"
        if states_only
        else " AND NOT EXISTS"
        " (SELECT 1 FROM memory_embeddings e WHERE e.memory_id = m.id AND e.model = %s)"
    )
    return conn.execute(
        "SELECT m.rowid, m.id, m.content, m.memory_type, m.namespace, m.tags::text AS tags"
        f" FROM memories m WHERE (%s < 0 OR m.rowid < %s){missing}"
        " ORDER BY m.rowid DESC LIMIT %s",
        (below, below, model, *((model,) if states_only else ()), take),
    ).fetchall()


def vector_index_name(dim: int) -> str:
    return f"idx_embeddings_hnsw_{int(dim)}"


def ensure_vector_index(conn: psycopg.Connection[Any], dim: int) -> bool:
    """Make the HNSW index of vectors of ``dim`` unless it exists (inside the caller's write
    transaction); True when made now."""
    name = vector_index_name(dim)
    exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()
    if exists is not None and exists[0]:
        return False
    conn.execute(
        "SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':hnsw:' || %s::text))",
        (int(dim),),
    )
    exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()
    if exists is not None and exists[0]:
        return False
    size = int(dim)
    conn.execute(
        f"CREATE INDEX {name} ON memory_embeddings"
        f" USING hnsw ((vector::vector({size})) vector_ip_ops) WHERE dim = {size}".encode()
    )
    return True


def write_vectors(conn: psycopg.Connection[Any], rows: Sequence[tuple[Any, ...]]) -> None:
    """Store (memory id, model, dim, vector bytes, text hash, created at) rows, each only if
    its memory still exists, replacing a memory's older vector."""
    import numpy as np

    if not rows:
        return
    for dim in sorted({int(row[2]) for row in rows}):
        ensure_vector_index(conn, dim)
    params = [
        (
            memory_id,
            model,
            dim,
            np.frombuffer(vector, dtype="<f4").astype(np.float32),
            text_hash,
            created_at,
            memory_id,
        )
        for memory_id, model, dim, vector, text_hash, created_at in rows
    ]
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO memory_embeddings (memory_id, model, dim, vector, text_hash, created_at)"
            " SELECT %s, %s, %s, %s, %s, %s WHERE EXISTS (SELECT 1 FROM memories WHERE id = %s)"
            " ON CONFLICT (memory_id) DO UPDATE SET model = excluded.model,"
            " dim = excluded.dim, vector = excluded.vector,"
            " text_hash = excluded.text_hash, created_at = excluded.created_at",
            params,
        )


def write_states(conn: psycopg.Connection[Any], rows: Sequence[tuple[str, str, bytes]]) -> None:
    """Store (memory id, model, packed states) rows, each only beside a vector of that model:
    a row whose content changed meanwhile lost its vector, and its states wait for the new
    one."""
    if not rows:
        return
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO memory_tokens (memory_id, model, states) SELECT %s, %s, %s"
            " WHERE EXISTS (SELECT 1 FROM memory_embeddings WHERE memory_id = %s"
            " AND model = %s)"
            " ON CONFLICT (memory_id) DO UPDATE SET model = excluded.model,"
            " states = excluded.states",
            [(memory_id, model, states, memory_id, model) for memory_id, model, states in rows],
        )


def delete_vectors(conn: psycopg.Connection[Any], *, keep_model: str | None) -> int:
    """Delete the vectors of every model but ``keep_model`` (None: all vectors and token
    states); the number of vectors deleted (their token states go with them, by trigger)."""
    if keep_model is None:
        conn.execute("DELETE FROM memory_tokens")
        return conn.execute("DELETE FROM memory_embeddings").rowcount
    return conn.execute("DELETE FROM memory_embeddings WHERE model <> %s", (keep_model,)).rowcount


def models(conn: psycopg.Connection[Any]) -> dict[str, int]:
    """Vectors stored per model."""
    rows = conn.execute(
        "SELECT model, count(*) FROM memory_embeddings GROUP BY model ORDER BY model"
    ).fetchall()
    return {r[0]: int(r[1]) for r in rows}
