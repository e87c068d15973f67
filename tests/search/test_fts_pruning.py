"""BM25 over a store larger than the scoring budget: the rare terms choose the rows, every term
scores them, and the scores are the full query's."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memlode.config import Settings
from memlode.engine import Engine
from memlode.search.fts import (
    Bm25Query,
    FtsHit,
    TermFrequencies,
    bm25_search,
    bm25_terms,
    document_frequency,
    fts_query,
    query_terms,
)
from memlode.storage.fts_match import split_by_rarity
from memlode.storage.values import MemoryFilter


def split_terms(
    conn: sqlite3.Connection, terms: list[str], wanted: int, budget: int, size: int
) -> tuple[list[str], list[str]]:
    """(rare, common) by each term's document frequency, counted afresh."""
    return split_by_rarity(terms, {t: document_frequency(conn, t) for t in terms}, wanted, budget)


BUDGET = 40  # rows; the store below has 300
LIMIT = 5
EVERYTHING = 10**9
# Words with very different document frequencies: every row draws from the common ones, few
# from the rare ones.
COMMON = ["alpha", "beta", "gamma", "delta"]
MIDDLE = ["kappa", "lambda", "sigma"]
RARE = ["zeta", "theta", "omega", "psi"]
QUERIES = [
    "zeta alpha beta",
    "theta gamma kappa",
    "omega psi alpha beta gamma delta",
    "alpha beta gamma",  # common words only: the rarest of them still choose
    "kappa sigma lambda zeta",
    "psi",
    "missingword alpha zeta",
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    home = tmp_path_factory.mktemp("pruning")
    engine = Engine(
        Settings.load({"home": str(home), "namespace": "main", "embed_provider": "none"})
    )
    rng = random.Random(3)
    items = []
    for i in range(300):
        words = rng.sample(COMMON, rng.randint(1, 3))
        if rng.random() < 0.3:
            words += rng.sample(MIDDLE, 1)
        if rng.random() < 0.06:
            words += rng.sample(RARE, rng.randint(1, 2))
        words += [f"filler{i}"] * rng.randint(0, 4)  # lengths differ, so scores do
        rng.shuffle(words)
        namespace = "main" if i % 4 else "other"
        items.append(engine.new_memory(" ".join(words), namespace=namespace))
    engine.store_many(items)
    yield engine
    engine.close()


def _exact(engine: Engine, query: str, flt: MemoryFilter) -> list[FtsHit]:
    return bm25_search(engine.conn, query, flt, 1000, budget=EVERYTHING)


def _rows_with(engine: Engine, terms: list[str]) -> set[str]:
    rows = engine.conn.execute(
        "SELECT m.id FROM memories_fts JOIN memories m ON m.rowid = memories_fts.rowid"
        " WHERE memories_fts MATCH ?",
        (fts_query(terms),),
    )
    return {r[0] for r in rows}


@pytest.mark.parametrize("namespace", [None, "main"])
@pytest.mark.parametrize("query", QUERIES)
def test_pruned_ranking_is_the_full_ranking_of_rows_with_a_rare_term(
    store: Engine, query: str, namespace: str | None
) -> None:
    conn = store.conn
    flt = MemoryFilter(namespace=namespace)
    size = conn.execute("SELECT max(rowid) FROM memories").fetchone()[0]
    rare, _ = split_terms(conn, query_terms(query), LIMIT * 3, BUDGET, size)
    assert rare
    chosen = _rows_with(store, rare)
    expected = [h for h in _exact(store, query, flt) if h.id in chosen][:LIMIT]

    got = bm25_search(conn, query, flt, LIMIT, budget=BUDGET)

    assert [h.id for h in got] == [h.id for h in expected]
    assert [h.rank for h in got] == pytest.approx([h.rank for h in expected], rel=1e-9)


def test_rare_terms_supply_the_top_results(store: Engine) -> None:
    # A query with a rare word: its rows outscore every row with common words only, so the
    # pruned top results are the exact ones.
    flt = MemoryFilter()
    for query in ("zeta alpha beta", "omega psi alpha beta gamma delta"):
        exact = _exact(store, query, flt)[:LIMIT]
        got = bm25_search(store.conn, query, flt, LIMIT, budget=BUDGET)
        assert [h.id for h in got] == [h.id for h in exact]


def test_split_takes_rarest_first_within_the_budget(store: Engine) -> None:
    conn = store.conn
    size = conn.execute("SELECT max(rowid) FROM memories").fetchone()[0]
    counts = {w: document_frequency(conn, w) for w in COMMON + MIDDLE + RARE}
    terms = ["alpha", "kappa", "zeta", "theta", "nosuchword"]
    rare, common = split_terms(conn, terms, 1, BUDGET, size)
    assert "nosuchword" not in rare + common  # no row has it: it scores nothing
    assert sorted(rare + common) == sorted(["alpha", "kappa", "zeta", "theta"])
    assert rare == sorted(rare, key=lambda t: (counts[t], t))
    assert all(counts[r] <= counts[c] for r in rare for c in common)
    assert sum(counts[t] for t in rare) <= BUDGET
    # Too few rows for what is wanted: more terms join, past the budget if need be.
    wanted = counts["zeta"] + counts["theta"] + 1
    rare, _ = split_terms(conn, terms, wanted, BUDGET, size)
    assert sum(counts[t] for t in rare) >= wanted


def test_small_store_runs_the_plain_query(store: Engine) -> None:
    flt = MemoryFilter()
    for query in QUERIES:
        plain = bm25_search(store.conn, query, flt, LIMIT, budget=1000)
        assert plain == _exact(store, query, flt)[:LIMIT]


def test_term_frequencies_are_cached_until_the_store_grows(tmp_path: Path) -> None:
    engine = Engine(Settings.load({"home": str(tmp_path), "embed_provider": "none"}))
    try:
        engine.store_many([engine.new_memory(f"word{i} common") for i in range(100)])
        freq = TermFrequencies()
        assert freq.get(engine.conn, ["common", "word1"], 100) == {"common": 100, "word1": 1}
        engine.store_many([engine.new_memory(f"more{i} common") for i in range(5)])
        assert freq.get(engine.conn, ["common"], 105) == {"common": 100}  # within 10%
        engine.store_many([engine.new_memory(f"again{i} common") for i in range(10)])
        assert freq.get(engine.conn, ["common"], 115) == {"common": 115}
    finally:
        engine.close()


def test_any_query_is_valid_when_pruned(store: Engine) -> None:
    alphabet = st.sampled_from(COMMON + MIDDLE + RARE + ['"', "*", "NEAR", "(", "ünï", "x_y"])

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(st.one_of(alphabet, st.text(max_size=8)), max_size=8), st.integers(1, 30))
    def check(parts: list[str], budget: int) -> None:
        query = " ".join(parts)
        hits = bm25_search(store.conn, query, MemoryFilter(namespace="main"), 4, budget=budget)
        assert len(hits) <= 4
        assert [h.rank for h in hits] == sorted((h.rank for h in hits), reverse=True)

    check()


def test_ranks_are_the_whole_query_scores_of_any_rows(store: Engine) -> None:
    # Candidates found by vectors get the score the whole query gives them, pruned or not.
    ids = dict(store.conn.execute("SELECT rowid, id FROM memories").fetchall())
    flt = MemoryFilter()
    for query in QUERIES:
        exact = {h.id: h.rank for h in _exact(store, query, flt)}
        for budget in (BUDGET, EVERYTHING):
            ranks = Bm25Query(store.conn, bm25_terms(query), LIMIT, budget=budget).ranks(list(ids))
            got = {ids[rowid]: rank for rowid, rank in ranks.items()}
            assert got.keys() == exact.keys()
            assert [got[i] for i in exact] == pytest.approx(list(exact.values()), rel=1e-9)
