"""The vector side of a hybrid query on its worker thread: neighbours, their BM25 scores read
through a second connection, and errors that surface where the caller waits."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from memlode.embed import EmbedError
from memlode.engine import Engine
from memlode.search.fts import rank_ids
from memlode.search.hybrid import recall
from memlode.search.recall_params import MIN_VECTOR_SIMILARITY
from memlode.search.vector_side import VectorWorker
from memlode.types import utcnow


@pytest.fixture
def filled(engine: Engine) -> Engine:
    for i in range(20):
        engine.store(f"kafka consumer lag note {i}" if i % 2 else f"unrelated gardening tip {i}")
    engine.embed_pending()
    return engine


def test_neighbours_come_with_their_bm25_scores(filled: Engine) -> None:
    query = "kafka consumer lag"
    vectors = filled.embeddings.nearest(query, 30, "test")
    assert vectors is not None
    nearest = vectors.result()
    assert nearest.vector is not None and len(nearest.hits) == 20
    assert nearest.bm25 is not None
    asked = [i for i, cosine in nearest.hits if cosine >= 0.2]
    assert set(nearest.bm25) == set(asked)
    expected = rank_ids(filled.conn, query, asked)  # the caller's own connection agrees
    assert nearest.bm25 == pytest.approx({i: expected.get(i, 0.0) for i in asked})
    assert any(v > 0 for v in nearest.bm25.values())


def test_without_a_database_file_the_caller_scores_them(filled: Engine) -> None:
    index = filled.embeddings.index
    assert index is not None
    worker = VectorWorker(None)
    try:
        nearest = worker.start("kafka", 5, None, index, filled.embeddings.embed_query_states, 0.2)
        found = nearest.result()
        assert found.bm25 is None and len(found.hits) == 5
    finally:
        worker.close()


def test_an_embedder_error_surfaces_where_the_caller_waits(filled: Engine) -> None:
    index = filled.embeddings.index
    assert index is not None

    def broken(text: str) -> tuple[npt.NDArray[np.float32], None]:
        raise EmbedError("the embedding server is down")

    worker = VectorWorker(filled.db)
    try:
        pending = worker.start("kafka", 5, None, index, broken, 0.2)
        with pytest.raises(EmbedError, match="down"):
            pending.result()
    finally:
        worker.close()


def test_recall_is_the_same_whichever_connection_scores_neighbours(filled: Engine) -> None:
    index = filled.embeddings.index
    assert index is not None
    query, params, flt = "kafka consumer lag", filled.recall_params(), filled.filter()
    k, now = 5, utcnow()
    no_reader = VectorWorker(None)
    try:
        here = no_reader.start(
            query,
            params.vector_candidates(k),
            "test",
            index,
            filled.embeddings.embed_query_states,
            MIN_VECTOR_SIMILARITY,
        )
        mine = recall(filled.conn, query, flt, k, params, now=now, vectors=here)
    finally:
        no_reader.close()
    there = filled.embeddings.nearest(query, params.vector_candidates(k), "test")
    theirs = recall(filled.conn, query, flt, k, params, now=now, vectors=there)
    assert [(h.memory.id, h.score) for h in mine] == [(h.memory.id, h.score) for h in theirs]
    assert mine and all(h.signals["bm25"] > 0 for h in mine if "kafka" in h.memory.content)
