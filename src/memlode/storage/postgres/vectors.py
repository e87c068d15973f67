"""Vectors on PostgreSQL: what only the server has, for the repositories that store and read them
(``memlode.storage.embeddings`` and ``memlode.storage.vector_rows``, through ``dialect``) and its
own nearest-neighbour search.

Vectors arrive and leave as SQLite stores them (little-endian float32 bytes, L2-normalised) and
are kept as pgvector ``vector`` values: ``vector_values`` turns the bytes of a write into them,
``PgConnection.vector_cursor`` reads them back as bytes. The column has no fixed dimension
(models of different dims may coexist), so the HNSW index is per dim: a partial
index on ``vector::vector(dim)`` ``WHERE dim = <dim>``, made by ``ensure_vector_index`` in the
transaction that writes the first vector of that dim (under an advisory lock, so two writers
never race to make it). Inner product serves as the distance: the vectors are normalised, so it
orders like cosine. ``nearest`` is the search a team store may prefer over loading every vector
into each process; the engine does not call it yet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.storage.postgres.rows import as_vector

if TYPE_CHECKING:
    from collections.abc import Sequence

    # a PgConnection (``adapter``), not imported: ``adapter`` -> ``dialect`` -> this module
    from memlode.storage.sql import Connection as PgConnection

__all__ = [
    "EF_SEARCH",
    "ensure_vector_index",
    "nearest",
    "vector_index_name",
    "vector_values",
]

# How many candidates the HNSW scan keeps (pgvector's default is 40): more finds more of the
# exact top k when a namespace filter drops some of them, at a little more time per query.
EF_SEARCH = 100


def vector_index_name(dim: int) -> str:
    return f"idx_embeddings_hnsw_{int(dim)}"


def ensure_vector_index(conn: PgConnection, dim: int) -> bool:
    """Make the HNSW index of vectors of ``dim`` unless it exists (inside the caller's write
    transaction); True when made now."""
    name = vector_index_name(dim)
    exists = "SELECT to_regclass(CAST(? AS text)) IS NOT NULL"
    if conn.execute(exists, (name,)).fetchone()[0]:
        return False
    conn.execute(
        "SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':hnsw:' || CAST(? AS text)))",
        (str(int(dim)),),
    )
    if conn.execute(exists, (name,)).fetchone()[0]:
        return False
    size = int(dim)
    conn.execute(
        f"CREATE INDEX {name} ON memory_embeddings"
        f" USING hnsw ((vector::vector({size})) vector_ip_ops) WHERE dim = {size}"
    )
    return True


def vector_values(conn: PgConnection, rows: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """``embeddings.write_vectors``'s (memory id, model, dim, vector bytes, text hash, created at)
    rows with each vector as a pgvector value, once the HNSW index of each dim among them
    exists."""
    for dim in sorted({int(row[2]) for row in rows}):
        ensure_vector_index(conn, dim)
    return [(*row[:3], as_vector(row[3]), *row[4:]) for row in rows]


def nearest(
    conn: PgConnection,
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
    scope = " AND m.namespace = ANY(?)" if names else ""
    with conn.raw.transaction():
        conn.execute(f"SET LOCAL hnsw.ef_search = {int(max(EF_SEARCH, k))}")
        # with a namespace filter, keep scanning the graph until k rows pass it
        conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        rows = conn.execute(
            f"SELECT e.memory_id, -(e.vector::vector({dim}) <#> CAST(? AS vector({dim})))"
            " AS score FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id"
            f" WHERE e.dim = {dim} AND e.model = ?{scope}"
            f" ORDER BY e.vector::vector({dim}) <#> CAST(? AS vector({dim})) LIMIT ?",
            (vector, model, *((names,) if names else ()), vector, k),
        ).fetchall()
    # relaxed order: the scan may return rows slightly out of order
    return sorted(((str(r[0]), float(r[1])) for r in rows), key=lambda r: -r[1])
