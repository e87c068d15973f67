"""Recall's candidates: every candidate is scored by BM25, however it was found."""

from __future__ import annotations

from memlode.config import normalise_weights
from memlode.engine import Engine
from memlode.search.hybrid import RecallParams, recall
from memlode.types import utcnow


def test_a_graph_candidate_below_the_bm25_pool_keeps_its_bm25_score(engine: Engine) -> None:
    first = engine.store("kafka consumer lag alert number 0", importance=0.0).id
    for i in range(1, 12):
        engine.store(f"kafka consumer lag alert number {i}", importance=0.0)
    # Mentions kafka once in a long text: BM25 ranks it last, below the pool of 2 * k = 4.
    buried = engine.store(
        "the quarterly planning notes about roadmap, hiring, budget, offsites, kafka, "
        "travel, reviews and many other unrelated things",
        importance=1.0,
    ).id
    engine.associate(first, buried)  # so it is a candidate: a neighbour of a strong one
    weights = normalise_weights({"bm25": 1.0, "importance": 3.0, "graph": 0.1})
    params = RecallParams(weights=weights, candidates=1, mmr_lambda=1.0, min_score=0.0)
    query = "kafka consumer lag alert"
    found = recall(engine.conn, query, engine.filter(), 2, params, now=utcnow())
    hits = {h.memory.id: h for h in found}
    assert buried in hits
    assert hits[buried].signals["bm25"] > 0
