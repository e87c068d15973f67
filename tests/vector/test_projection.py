"""The approximate first stage of large vector indexes: recall against exact, exact scores, the
self-check that refuses a projection, and the on-disk mirror."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memlode.storage.db import Database
from memlode.vector import projection
from memlode.vector.index import VectorIndex
from memlode.vector.projection import MIN_RECALL, MIN_ROWS, fit_projection

pytestmark = pytest.mark.heavy  # tests/conftest.py: run first

DIM = 384
MODEL = "test:clusters"


def _normalise(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _clustered(rows: int, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """Vectors around 300 topics, as embeddings of real text are: (vectors, topic centres)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((300, DIM), dtype=np.float32)
    topics = rng.integers(0, len(centres), rows)
    vectors = rng.standard_normal((rows, DIM), dtype=np.float32)  # float32 throughout: the
    vectors *= 0.8  # index's type, and a float64 matrix cost seconds more here
    vectors += centres[topics]
    return _normalise(vectors), centres


def _queries(centres: np.ndarray, count: int, seed: int = 11) -> np.ndarray:
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, len(centres), (count, 2))
    return _normalise(centres[pick[:, 0]] + 0.7 * centres[pick[:, 1]])


def _store(tmp_path: Path, vectors: np.ndarray) -> Database:
    """A real store holding ``vectors`` as embeddings of memories (inserted in bulk)."""
    db = Database(tmp_path / "memlode.db")
    now = "2026-11-22T00:00:00.000000Z"
    with db.write() as conn:
        conn.executemany(
            "INSERT INTO memories (id, content, content_hash, namespace, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [(f"m{i}", f"memory {i}", f"h{i}", "ns" if i % 4 else "other", now, now)
             for i in range(len(vectors))],
        )  # fmt: skip
        conn.executemany(
            "INSERT INTO memory_embeddings (memory_id, model, dim, vector, text_hash, created_at)"
            " VALUES (?, ?, ?, ?, '', ?)",
            [(f"m{i}", MODEL, DIM, v.tobytes(), now) for i, v in enumerate(vectors)],
        )
    return db


@pytest.fixture(scope="module")
def clustered() -> tuple[np.ndarray, np.ndarray]:
    """MIN_ROWS + 4,000 vectors and their centres, made once for the module's tests (a few
    seconds of numpy on this machine); the tests only read them."""
    vectors, centres = _clustered(MIN_ROWS + 4_000)
    vectors.flags.writeable = False
    return vectors, centres


def test_small_matrices_get_no_projection(clustered: tuple[np.ndarray, np.ndarray]) -> None:
    vectors = clustered[0][: MIN_ROWS - 1]
    assert fit_projection(vectors) is None


def test_projection_keeps_recall_and_returns_exact_cosines(
    tmp_path: Path, clustered: tuple[np.ndarray, np.ndarray]
) -> None:
    vectors, centres = clustered
    db = _store(tmp_path, vectors)
    index = VectorIndex(MODEL, DIM, cache_dir=tmp_path / "cache", database="x")
    index.refresh(db.conn)
    fitted = index._projection
    assert fitted is not None and fitted.recall >= MIN_RECALL

    found = total = 0
    for query in _queries(centres, 40):
        hits = index.search(query, 100)
        exact = vectors @ query
        truth = set(np.argsort(-exact)[:100].tolist())
        found += len(truth & {int(memory_id[1:]) for memory_id, _ in hits})
        total += len(truth)
        # scores are exact cosines, best first
        for memory_id, score in hits:
            assert score == pytest.approx(float(exact[int(memory_id[1:])]), abs=1e-5)
        assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    assert found / total >= MIN_RECALL

    # a namespace filter applies before the shortlist: only that namespace, still close
    query = _queries(centres, 1, seed=5)[0]
    hits = index.search(query, 50, namespace="other")
    assert hits and all(int(memory_id[1:]) % 4 == 0 for memory_id, _ in hits)
    other = np.array([i % 4 == 0 for i in range(len(vectors))])
    exact = np.where(other, vectors @ query, -np.inf)
    truth = set(np.argsort(-exact)[:50].tolist())
    assert len(truth & {int(m[1:]) for m, _ in hits}) / 50 >= MIN_RECALL

    # a fresh process maps the mirrored projection instead of fitting again
    again = VectorIndex(MODEL, DIM, cache_dir=tmp_path / "cache", database="x")
    again.refresh(db.conn)
    loaded = again._projection
    assert loaded is not None
    assert isinstance(loaded.reduced, np.memmap)
    assert loaded.shortlist == fitted.shortlist and loaded.recall == fitted.recall
    assert again.search(query, 50, namespace="other") == hits

    # rows appended later are projected with the same basis (no refit until the index doubles)
    extra = _normalise(np.asarray([query + 0.01 * i for i in range(3)]))
    now = "2026-11-22T00:00:01.000000Z"
    with db.write() as conn:
        for i, vector in enumerate(extra):
            conn.execute(
                "INSERT INTO memories (id, content, content_hash, namespace, created_at,"
                " updated_at) VALUES (?, ?, ?, 'other', ?, ?)",
                (f"new{i}", f"new {i}", f"n{i}", now, now),
            )
            conn.execute(
                "INSERT INTO memory_embeddings (memory_id, model, dim, vector, text_hash,"
                " created_at) VALUES (?, ?, ?, ?, '', ?)",
                (f"new{i}", MODEL, DIM, vector.tobytes(), now),
            )
    again.refresh(db.conn)
    grown = again._projection
    assert grown is loaded and grown.fitted_rows == fitted.fitted_rows
    assert grown.reduced.shape[0] == len(again) == len(vectors) + 3
    top = again.search(query, 3, namespace="other")
    assert {m for m, _ in top} == {"new0", "new1", "new2"}


def test_a_projection_that_cannot_keep_recall_is_not_used() -> None:
    # Directions with no structure: 96 of 384 components keep a quarter of each vector, and
    # even the largest shortlist (16,000 of 60,000 rows) misses ~13% of the true neighbours
    # (recall 0.874 measured at that shortlist). Drawn and normalised in float32, the type the
    # index holds: float64 first cost ~3 s more here for the same kind of matrix.
    vectors = np.random.default_rng(3).standard_normal((60_000, DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    assert projection.MAX_SHORTLIST < 60_000 / 3
    assert fit_projection(vectors) is None
