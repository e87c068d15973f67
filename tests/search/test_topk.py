"""Top-k over a million scores without a million-way partial sort (issue 16, 1M memories): the
sampled threshold is exact, ties across the cut included, for the vector index's first stage
and for the in-memory BM25's best rows."""

from __future__ import annotations

import numpy as np
import pytest

from memlode.search.text_index import QueryScores
from memlode.search.topk import at_least, best_of


@pytest.mark.parametrize("count", [10_000, 300_000])
@pytest.mark.parametrize("size", [100, 2_000])
def test_best_of_is_the_exact_top(count: int, size: int) -> None:
    rng = np.random.default_rng(count + size)
    scores = rng.standard_normal(count).astype(np.float32)
    scores[::7] = scores[3]  # ties across the cut
    got = best_of(scores, size)
    assert len(got) == size == len(set(got.tolist()))
    expected = np.sort(scores)[::-1][:size]
    np.testing.assert_array_equal(np.sort(scores[got])[::-1], expected)


def test_at_least_holds_every_score_at_the_cut_or_above() -> None:
    rng = np.random.default_rng(4)
    scores = np.round(rng.random(500_000), 3)  # many ties
    passed = at_least(scores, 1_000)
    assert passed is not None
    cut = np.sort(scores)[::-1][999]
    assert set(np.flatnonzero(scores >= cut).tolist()) <= set(passed.tolist())
    assert len(passed) < 10 * 1_000  # a few more than asked, not the array
    # a sample that hits only the few high scores sets the threshold too high: None, so the
    # caller sorts everything
    spiky = np.zeros(500_000)
    step = 500_000 // (8 * 1_000)
    spiky[::step] = np.linspace(2.0, 1.0, len(spiky[::step]))
    assert at_least(spiky, 1_000) is None
    assert len(best_of(spiky, 1_000)) == 1_000


def _reference(scores: np.ndarray, limit: int, skip: int) -> list[tuple[int, float]]:
    rows = np.flatnonzero(scores > 0)
    order = np.lexsort((rows, -scores[rows]))[skip : skip + limit]
    return [(int(r), float(scores[r])) for r in rows[order]]


@pytest.mark.parametrize("matched", [50, 5_000, 400_000])
def test_bm25_best_windows_rank_like_fts5(matched: int) -> None:
    rng = np.random.default_rng(matched)
    scores = np.zeros(1_000_000)
    rows = rng.choice(len(scores), matched, replace=False)
    scores[rows] = np.round(rng.random(matched) * 20, 2) + 0.01  # ties by rowid
    ranked = QueryScores(scores)
    assert ranked.matched() == matched
    for limit, skip in ((300, 0), (1_200, 300), (4_800, 1_500)):
        assert ranked.best(limit, skip) == _reference(scores, limit, skip)
