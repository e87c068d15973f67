"""The batched vector maths recall uses: similarities (with neighbour smoothing) and the MMR
window's pairwise cosines, checked against the one-vector-at-a-time definitions."""

from __future__ import annotations

import numpy as np
import pytest

from memlode.engine import Engine
from memlode.vector.index import VectorIndex


@pytest.fixture
def index(engine: Engine) -> VectorIndex:
    for i in range(12):
        engine.store(f"note {i} about topic {i % 3} and word{i}")
    engine.store("elsewhere", namespace="other")
    engine.embed_pending()
    found = engine.embeddings.index
    assert found is not None and len(found) == 13
    return found


def _vec(index: VectorIndex, memory_id: str) -> np.ndarray:
    vector = index.vector_of(memory_id)
    assert vector is not None
    return vector.astype(np.float64)


def test_similarities_match_the_definition(index: VectorIndex) -> None:
    query = index.vector_of(index.ids[0])
    assert query is not None
    ids = [*index.ids[:6], "not-indexed"]
    neighbours = {ids[1]: (ids[2],), ids[3]: (ids[2], ids[4]), ids[5]: ("not-indexed",)}
    got = index.similarities(query, ids, neighbours, smoothing=0.5)
    q = query.astype(np.float64)
    expected = []
    for memory_id in ids:
        if memory_id == "not-indexed":
            expected.append(0.0)
            continue
        total = _vec(index, memory_id)
        near = neighbours.get(memory_id, ())
        if not near:
            expected.append(float(total @ q))
            continue
        for other in near:
            if other != "not-indexed":
                total = total + 0.5 * _vec(index, other)
        expected.append(float(total @ q) / float(np.linalg.norm(total)))
    assert got == pytest.approx(expected, abs=1e-6)
    plain = index.similarities(query, ids, neighbours, smoothing=0.0)
    assert plain == pytest.approx(
        [float(_vec(index, i) @ q) if i in index.ids else 0.0 for i in ids], abs=1e-6
    )


def test_gram_is_pairwise_cosine(index: VectorIndex) -> None:
    ids = [index.ids[0], "not-indexed", index.ids[4], index.ids[7]]
    found = index.gram(ids)
    assert found is not None
    matrix, have = found
    assert have == [True, False, True, True]
    for i, a in enumerate(ids):
        for j, b in enumerate(ids):
            if have[i] and have[j]:
                assert matrix[i, j] == pytest.approx(
                    float(_vec(index, a) @ _vec(index, b)), abs=1e-6
                )
    assert index.gram(["nothing", "here"]) is None


def test_search_in_a_namespace(index: VectorIndex, engine: Engine) -> None:
    query = index.vector_of(index.ids[3])
    assert query is not None
    everywhere = index.search(query, 20)
    assert len(everywhere) == 13
    mine = index.search(query, 20, "test")
    ours = {i for i, ns in zip(index.ids, index.namespaces, strict=True) if ns == "test"}
    assert len(ours) == 12
    expected = [(i, c) for i, c in everywhere if i in ours]
    assert {i for i, _ in mine} == {i for i, _ in expected}  # ties may come in any order
    assert [c for _, c in mine] == pytest.approx([c for _, c in expected])
    assert index.search(query, 20, "no-such-namespace") == []
