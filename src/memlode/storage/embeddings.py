"""Stored vectors (``memory_embeddings``) and token states (``memory_tokens``): counts per
model, the rows still to embed (newest first), the writes of a batch, and the relationships a
memory's text is enriched with before it is embedded. ``memlode.engine.embedding`` drives these.

One module for both backends: on PostgreSQL a vector is a pgvector value with an HNSW index per
dim (``memlode.storage.postgres.vectors``, bound by its ``Dialect.bind_vectors``), handed in and
out as the same float32 bytes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.storage.capture import SUMMARY_SOURCE
from memlode.storage.sql import dialect_of

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memlode.storage.sql import Connection, Row

__all__ = [
    "change_marks",
    "delete_vectors",
    "memory_count",
    "models",
    "relationships_of",
    "rows_by_model",
    "rows_to_embed",
    "write_states",
    "write_vectors",
]


def memory_count(conn: Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])


def change_marks(conn: Connection, model: str) -> tuple[Any, Any]:
    """What moves when a memory's text changes (the FTS change log's last sequence) or the
    model's vectors do (``vector_state``): both one indexed lookup."""
    seq = conn.execute("SELECT coalesce(max(seq), 0) FROM memories_fts_log").fetchone()[0]
    state = conn.execute("SELECT version FROM vector_state WHERE model = ?", (model,)).fetchone()
    return seq, (state[0] if state is not None else None)


def rows_by_model(conn: Connection, table: str, model: str) -> int:
    """Rows of ``memory_embeddings`` or ``memory_tokens`` made by ``model`` (an index count)."""
    if table not in ("memory_embeddings", "memory_tokens"):
        raise ValueError(f"not a table of vectors: {table}")
    return int(
        conn.execute(f"SELECT count(*) FROM {table} WHERE model = ?", (model,)).fetchone()[0]
    )


def relationships_of(conn: Connection, ids: Sequence[str]) -> list[tuple[Any, ...]]:
    """(memory id, edge id, relationship, name of the other end, whether the other end is a
    memory consolidation derived: 0 or 1) of every edge touching one of ``ids``, by memory then
    edge id."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows: list[tuple[Any, ...]] = conn.execute(
        "SELECT x.memory_id, x.edge_id, x.relationship, n.name,"
        " CASE WHEN o.source = ? THEN 1 ELSE 0 END FROM ("
        " SELECT source_id AS memory_id, id AS edge_id, relationship, target_id AS other"
        f" FROM graph_edges WHERE source_id IN ({marks}) UNION ALL"
        " SELECT target_id, id, relationship, source_id"
        f" FROM graph_edges WHERE target_id IN ({marks})"
        ") x JOIN graph_nodes n ON n.id = x.other"
        " LEFT JOIN memories AS o ON o.id = n.memory_id ORDER BY x.memory_id, x.edge_id",
        [SUMMARY_SOURCE, *ids, *ids],
    ).fetchall()
    return rows


def rows_to_embed(
    conn: Connection, model: str, below: int, take: int, *, states_only: bool
) -> list[Row]:
    """Up to ``take`` memories (rowid, id, content, memory_type, namespace, tags, source) below
    rowid ``below`` (any, when negative), newest first, that have no vector from ``model`` (with
    ``states_only``: that have one but no token states from it)."""
    missing = (
        " AND EXISTS (SELECT 1 FROM memory_embeddings e WHERE e.memory_id = m.id"
        " AND e.model = ?) AND NOT EXISTS"
        " (SELECT 1 FROM memory_tokens t WHERE t.memory_id = m.id AND t.model = ?)"
        if states_only
        else " AND NOT EXISTS"
        " (SELECT 1 FROM memory_embeddings e WHERE e.memory_id = m.id AND e.model = ?)"
    )
    rows: list[Row] = conn.execute(
        "SELECT m.rowid, m.id, m.content, m.memory_type, m.namespace, m.tags, m.source"
        f" FROM memories m WHERE (? < 0 OR m.rowid < ?){missing}"
        " ORDER BY m.rowid DESC LIMIT ?",
        (below, below, model, *((model,) if states_only else ()), take),
    ).fetchall()
    return rows


def write_vectors(conn: Connection, rows: Sequence[tuple[Any, ...]]) -> None:
    """Store (memory id, model, dim, vector bytes, text hash, created at) rows, each only if
    its memory still exists, replacing a memory's older vector."""
    rows = dialect_of(conn).bind_vectors(conn, rows)  # PostgreSQL: its index made first
    conn.executemany(
        "INSERT INTO memory_embeddings (memory_id, model, dim, vector, text_hash,"
        " created_at) SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS"
        " (SELECT 1 FROM memories WHERE id = ?)"
        " ON CONFLICT (memory_id) DO UPDATE SET model = excluded.model,"
        " dim = excluded.dim, vector = excluded.vector,"
        " text_hash = excluded.text_hash, created_at = excluded.created_at",
        [(*row, row[0]) for row in rows],
    )


def write_states(conn: Connection, rows: Sequence[tuple[str, str, bytes]]) -> None:
    """Store (memory id, model, packed states) rows, each only beside a vector of that model:
    a row whose content changed meanwhile lost its vector, and its states wait for the new
    one."""
    conn.executemany(
        "INSERT INTO memory_tokens (memory_id, model, states) SELECT ?, ?, ?"
        " WHERE EXISTS (SELECT 1 FROM memory_embeddings WHERE memory_id = ?"
        " AND model = ?)"
        " ON CONFLICT (memory_id) DO UPDATE SET model = excluded.model,"
        " states = excluded.states",
        [(memory_id, model, states, memory_id, model) for memory_id, model, states in rows],
    )


def delete_vectors(conn: Connection, *, keep_model: str | None) -> int:
    """Delete the vectors of every model but ``keep_model`` (None: all vectors and token
    states); the number of vectors deleted."""
    if keep_model is None:
        conn.execute("DELETE FROM memory_tokens")
        return int(conn.execute("DELETE FROM memory_embeddings").rowcount)
    return int(
        conn.execute("DELETE FROM memory_embeddings WHERE model != ?", (keep_model,)).rowcount
    )


def models(conn: Connection) -> dict[str, int]:
    """Vectors stored per model."""
    rows = conn.execute(
        "SELECT model, count(*) FROM memory_embeddings GROUP BY model ORDER BY model"
    ).fetchall()
    return {r[0]: int(r[1]) for r in rows}
