"""Inverted lists for large vector indexes (issue 16, 1M memories): a query reads the rows of
its nearest lists only, recall against exact still holds, appended rows join a list's tail,
the lists are mirrored."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memlode.storage.db import Database
from memlode.vector import mirror as mirror_module
from memlode.vector import projection
from memlode.vector.clusters import cluster_count
from memlode.vector.index import VectorIndex
from memlode.vector.projection import MIN_RECALL, fit_projection

pytestmark = pytest.mark.heavy  # tests/conftest.py: run first

DIM = 384
MODEL = "test:lists"
ROWS = 30_000
NOW = "2026-11-24T00:00:00.000000Z"


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


def _recall(vectors: np.ndarray, search, queries: np.ndarray, k: int = 100) -> float:
    found = 0
    for query in queries:
        truth = set(np.argpartition(-(vectors @ query), k - 1)[:k].tolist())
        found += len(truth & set(search(query, k)))
    return found / (k * len(queries))


@pytest.fixture
def lists_from_20k(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(projection, "MIN_CLUSTERED_ROWS", 20_000)
    monkeypatch.setattr(mirror_module, "MIN_CLUSTERED_ROWS", 20_000)


@pytest.fixture(scope="module")
def clustered() -> tuple[np.ndarray, np.ndarray]:
    """The ROWS vectors and their centres, made once for the module's tests (a few seconds of
    numpy on this machine); the tests only read them."""
    vectors, centres = _clustered(ROWS)
    vectors.flags.writeable = False
    return vectors, centres


def test_a_query_reads_a_few_lists_and_keeps_recall(
    lists_from_20k: None, clustered: tuple[np.ndarray, np.ndarray]
) -> None:
    vectors, centres = clustered
    fitted = fit_projection(vectors)
    assert fitted is not None and fitted.lists is not None
    lists = fitted.lists
    assert len(lists.centres) == cluster_count(ROWS)
    # every row in exactly one list, stored at its place in list order
    assert sorted(lists.order.tolist()) == list(range(ROWS))
    np.testing.assert_allclose(fitted.reduced, (vectors @ fitted.basis)[lists.order], atol=1e-5)
    assert fitted.recall >= MIN_RECALL
    assert fitted.probes < len(lists.centres)  # structured data: not every list is read
    query = _queries(centres, 1)[0]
    places, _ = lists.scores(fitted.reduced, query @ fitted.basis, fitted.probes)
    assert len(places) < ROWS

    def search(query: np.ndarray, k: int) -> list[int]:
        rows = fitted.candidates(query, k)
        return rows[np.argpartition(-(vectors[rows] @ query), k - 1)[:k]].tolist()

    assert _recall(vectors, search, _queries(centres, 30)) >= MIN_RECALL


def test_lists_are_mirrored_and_appended_rows_join_the_tail(
    tmp_path: Path, lists_from_20k: None, clustered: tuple[np.ndarray, np.ndarray]
) -> None:
    vectors, centres = clustered
    db = Database(tmp_path / "memlode.db")
    with db.write() as conn:
        conn.executemany(
            "INSERT INTO memories (id, content, content_hash, namespace, created_at, updated_at)"
            " VALUES (?, ?, ?, 'ns', ?, ?)",
            [(f"m{i}", f"memory {i}", f"h{i}", NOW, NOW) for i in range(ROWS)],
        )
        conn.executemany(
            "INSERT INTO memory_embeddings (memory_id, model, dim, vector, text_hash, created_at)"
            " VALUES (?, ?, ?, ?, '', ?)",
            [(f"m{i}", MODEL, DIM, v.tobytes(), NOW) for i, v in enumerate(vectors)],
        )
    index = VectorIndex(MODEL, DIM, cache_dir=tmp_path / "cache", database="x")
    index.refresh(db.conn)
    fitted = index._projection
    assert fitted is not None and fitted.lists is not None
    queries = _queries(centres, 20)
    before = [index.search(q, 50) for q in queries]

    again = VectorIndex(MODEL, DIM, cache_dir=tmp_path / "cache", database="x")
    again.refresh(db.conn)
    loaded = again._projection
    assert loaded is not None and loaded.lists is not None
    assert loaded.probes == fitted.probes
    np.testing.assert_array_equal(loaded.lists.order, fitted.lists.order)
    assert [again.search(q, 50) for q in queries] == before

    # new rows go to the tail of their list: a query next to them finds them
    extra = _normalise(np.asarray([queries[0] + 0.01 * i for i in range(3)]))
    with db.write() as conn:
        for i, vector in enumerate(extra):
            conn.execute(
                "INSERT INTO memories (id, content, content_hash, namespace, created_at,"
                " updated_at) VALUES (?, ?, ?, 'ns', ?, ?)",
                (f"new{i}", f"new {i}", f"n{i}", NOW, NOW),
            )
            conn.execute(
                "INSERT INTO memory_embeddings (memory_id, model, dim, vector, text_hash,"
                " created_at) VALUES (?, ?, ?, ?, '', ?)",
                (f"new{i}", MODEL, DIM, vector.tobytes(), NOW),
            )
    again.refresh(db.conn)
    assert again._projection is loaded and len(loaded.lists.tail) == 3
    assert {m for m, _ in again.search(queries[0], 3)} == {"new0", "new1", "new2"}

    # lists written by another fit (a save cut short) are not used with these rows
    lists_file = next((tmp_path / "cache").glob("vectors-*.lists.npz"))
    with np.load(lists_file) as data:
        parts = {name: data[name] for name in data.files}
    parts["token"] = np.array("0000")
    np.savez(lists_file, **parts)
    third = VectorIndex(MODEL, DIM, cache_dir=tmp_path / "cache", database="x")
    third.refresh(db.conn)
    refit = third._projection
    assert refit is not None and refit.lists is not None
    with np.load(lists_file) as data:  # fitted again and mirrored with a token of its own
        assert str(data["token"]) != "0000"
    assert {m for m, _ in third.search(queries[0], 3)} == {"new0", "new1", "new2"}
