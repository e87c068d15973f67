"""The PostgreSQL store's own vector search: one HNSW index per dim, made with the first
vector of that dim, answering like an exact search."""

from __future__ import annotations

import numpy as np

from memlode.storage import embeddings, memories
from memlode.storage.postgres import vectors
from memlode.storage.postgres.connection import PgDatabase
from memlode.storage.values import NewMemory

N = 300
DIM = 16


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    values = rng.standard_normal((n, dim)).astype(np.float32)
    return values / np.linalg.norm(values, axis=1, keepdims=True)


def test_hnsw_search_finds_the_exact_nearest_in_a_namespace(pg_url: str) -> None:
    rng = np.random.default_rng(7)
    matrix = _unit(rng, N, DIM)
    with PgDatabase(pg_url) as db:
        with db.write() as conn:
            ids = [
                memories.insert(conn, NewMemory(f"m{i}", namespace="ab"[i % 2]))[0]
                for i in range(N)
            ]
            embeddings.write_vectors(
                conn,
                [(ids[i], "m", DIM, matrix[i].astype("<f4").tobytes(), "h", "t") for i in range(N)],
            )
            assert not vectors.ensure_vector_index(conn, DIM)  # made by the write
            # a second model of another dim beside it gets an index of its own
            embeddings.write_vectors(
                conn, [(ids[0], "small", 4, _unit(rng, 1, 4)[0].tobytes(), "h", "t")]
            )
        names = {
            r[0]
            for r in db.conn.execute(
                "SELECT indexname FROM pg_indexes WHERE tablename = 'memory_embeddings'"
                " AND schemaname = current_schema() AND indexdef LIKE '%hnsw%'"
            )
        }
        assert names == {vectors.vector_index_name(DIM), vectors.vector_index_name(4)}
        with db.conn.raw.transaction():  # the index serves the query's order (small table: force)
            db.conn.execute("SET LOCAL enable_seqscan = off")
            plan = " ".join(
                str(r[0])
                for r in db.conn.execute(
                    f"EXPLAIN SELECT memory_id FROM memory_embeddings WHERE dim = {DIM}"
                    f" ORDER BY vector::vector({DIM}) <#> CAST(? AS vector({DIM})) LIMIT 5",
                    (matrix[0],),
                )
            )
        assert f"Index Scan using {vectors.vector_index_name(DIM)}" in plan
        found = recall = 0
        for _ in range(20):
            query = _unit(rng, 1, DIM)[0]
            in_a = [i for i in range(N) if i % 2 == 0]
            exact = sorted(in_a, key=lambda i: -float(matrix[i] @ query))[:10]
            got = vectors.nearest(db.conn, "m", query.astype("<f4").tobytes(), 10, ["a"])
            assert all(memories.fetch(db.conn, memory_id).namespace == "a" for memory_id, _ in got)
            scores = [score for _, score in got]
            assert scores == sorted(scores, reverse=True)
            found += len({ids[i] for i in exact} & {memory_id for memory_id, _ in got})
            recall += len(exact)
        assert found / recall >= 0.98
