"""What the in-memory vector index (``memlode.vector.index``) reads of ``memory_embeddings``:
one model's vectors in rowid order with their memory's namespace, the counts that tell it
whether rows were only appended since it loaded, and the model's version in ``vector_state``
(bumped by triggers when vectors are deleted or replaced).

One module for both backends: on PostgreSQL the vectors are read back as the same float32 bytes
(``PgConnection.vector_cursor``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.storage.sql import dialect_of

if TYPE_CHECKING:
    from memlode.storage.sql import Connection

__all__ = [
    "known_models",
    "memory_at",
    "model_version",
    "vector_count",
    "vector_count_and_rowid_sum",
    "vectors_after",
]


def model_version(conn: Connection, model: str) -> int:
    row = conn.execute("SELECT version FROM vector_state WHERE model = ?", (model,)).fetchone()
    return int(row[0]) if row is not None else 0


def vectors_after(conn: Connection, model: str, dim: int, after_rowid: int) -> Any:
    """(rowid, memory_id, vector, namespace) of the model's vectors past ``after_rowid``: a
    cursor, the vectors as little-endian float32 bytes."""
    reader = dialect_of(conn).vector_reader(conn)
    return reader.execute(
        "SELECT e.rowid, e.memory_id, e.vector, m.namespace FROM memory_embeddings e"
        " JOIN memories m ON m.id = e.memory_id"
        " WHERE e.model = ? AND e.dim = ? AND e.rowid > ? ORDER BY e.rowid",
        (model, dim, after_rowid),
    )


def vector_count(conn: Connection, model: str, dim: int) -> int:
    (count,) = conn.execute(
        "SELECT count(*) FROM memory_embeddings WHERE model = ? AND dim = ?", (model, dim)
    ).fetchone()
    return int(count)


def vector_count_and_rowid_sum(conn: Connection, model: str, dim: int) -> tuple[int, int]:
    """(rows, sum of their rowids): equal to what a loaded index holds only if nothing but
    appends happened since it loaded."""
    total, rowid_sum = conn.execute(
        "SELECT count(*), coalesce(sum(rowid), 0) FROM memory_embeddings"
        " WHERE model = ? AND dim = ?",
        (model, dim),
    ).fetchone()
    return int(total), int(rowid_sum)


def memory_at(conn: Connection, rowid: int) -> str | None:
    """The memory whose vector row is ``rowid``, if one is."""
    row = conn.execute("SELECT memory_id FROM memory_embeddings WHERE rowid = ?", (rowid,))
    found = row.fetchone()
    return str(found[0]) if found is not None else None


def known_models(conn: Connection) -> list[str]:
    """Every model that has (or had: ``vector_state``) vectors in the store."""
    return [
        str(r[0])
        for r in conn.execute(
            "SELECT model FROM vector_state UNION SELECT DISTINCT model FROM memory_embeddings"
        )
    ]
