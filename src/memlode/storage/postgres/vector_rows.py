"""What a process's vector index reads of ``memory_embeddings`` on PostgreSQL, and the search
the server's own HNSW index answers (the counterpart of ``memlode.storage.vector_rows``;
Protocol ``VectorRows``, plus ``nearest``).

``vectors_after`` hands the vectors out as SQLite stores them, little-endian float32 bytes
(``rows.vector_bytes_cursor``), so the in-memory index (``memlode.vector.index``) loads them
unchanged. ``nearest`` is the search a team store may prefer over loading every vector into
each process: the per-dim HNSW index (``embeddings.ensure_vector_index``), inner product on
normalised vectors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.storage.postgres.rows import vector_bytes_cursor

if TYPE_CHECKING:
    from collections.abc import Sequence

    import psycopg

__all__ = [
    "known_models",
    "model_version",
    "nearest",
    "vector_count",
    "vector_count_and_rowid_sum",
    "vectors_after",
]

# How many candidates the HNSW scan keeps (pgvector's default is 40): more finds more of the
# exact top k when a namespace filter drops some of them, at a little more time per query.
EF_SEARCH = 100


def model_version(conn: psycopg.Connection[Any], model: str) -> int:
    row = conn.execute("SELECT version FROM vector_state WHERE model = %s", (model,)).fetchone()
    return int(row[0]) if row is not None else 0


def vectors_after(
    conn: psycopg.Connection[Any], model: str, dim: int, after_rowid: int
) -> psycopg.Cursor[Any]:
    """(rowid, memory_id, vector bytes, namespace) of the model's vectors past ``after_rowid``,
    in rowid order."""
    cur = vector_bytes_cursor(conn)
    cur.execute(
        "SELECT e.rowid, e.memory_id, e.vector, m.namespace FROM memory_embeddings e"
        " JOIN memories m ON m.id = e.memory_id"
        " WHERE e.model = %s AND e.dim = %s AND e.rowid > %s ORDER BY e.rowid",
        (model, dim, after_rowid),
    )
    return cur


def vector_count(conn: psycopg.Connection[Any], model: str, dim: int) -> int:
    row = conn.execute(
        "SELECT count(*) FROM memory_embeddings WHERE model = %s AND dim = %s", (model, dim)
    ).fetchone()
    return int(row[0]) if row is not None else 0


def vector_count_and_rowid_sum(
    conn: psycopg.Connection[Any], model: str, dim: int
) -> tuple[int, int]:
    """(rows, sum of their rowids): equal to what a loaded index holds only if nothing but
    appends happened since it loaded."""
    row = conn.execute(
        "SELECT count(*), coalesce(sum(rowid), 0) FROM memory_embeddings"
        " WHERE model = %s AND dim = %s",
        (model, dim),
    ).fetchone()
    return (int(row[0]), int(row[1])) if row is not None else (0, 0)


def known_models(conn: psycopg.Connection[Any]) -> list[str]:
    """Every model that has (or had: ``vector_state``) vectors in the store."""
    rows = conn.execute(
        "SELECT model FROM vector_state UNION SELECT DISTINCT model FROM memory_embeddings"
    ).fetchall()
    return [str(r[0]) for r in rows]


def nearest(
    conn: psycopg.Connection[Any],
    model: str,
    query: bytes,
    k: int,
    namespaces: Sequence[str] = (),
) -> list[tuple[str, float]]:
    """(memory id, inner product) of the ``k`` vectors of ``model`` nearest ``query``
    (little-endian float32 bytes, normalised), best first, through the HNSW index of its dim;
    only memories of ``namespaces`` when given."""
    import numpy as np

    vector = np.frombuffer(query, dtype="<f4").astype(np.float32)
    dim = int(vector.shape[0])
    names = list(namespaces)
    scope = " AND m.namespace = ANY(%s)" if names else ""
    with conn.transaction():
        conn.execute(f"SET LOCAL hnsw.ef_search = {int(max(EF_SEARCH, k))}")
        # with a namespace filter, keep scanning the graph until k rows pass it
        conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        rows = conn.execute(
            f"SELECT e.memory_id, -(e.vector::vector({dim}) <#> %s::vector({dim})) AS score"
            " FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id"
            f" WHERE e.dim = {dim} AND e.model = %s{scope}"
            f" ORDER BY e.vector::vector({dim}) <#> %s::vector({dim}) LIMIT %s",
            (vector, model, *((names,) if names else ()), vector, k),
        ).fetchall()
    # relaxed order: the scan may return rows slightly out of order
    return sorted(((str(r[0]), float(r[1])) for r in rows), key=lambda r: -r[1])
