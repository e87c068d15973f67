"""BM25 on a PostgreSQL store ranks as on a SQLite one: the in-memory text index is built on the
first search (there is no FTS5 index to answer meanwhile), kept up to date from the change log,
and a query word of several tokens (a phrase) is scored from the rows' text exactly as FTS5's
``bm25()`` scores it."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlode.config import Settings
from memlode.engine import Engine
from memlode.search.query import SearchQuery
from memlode.types import utcnow

ROWS = [
    "The cache_eviction policy is LRU with a ten minute TTL",
    "cache misses and eviction storms after a deploy",
    "Caroline's notes: the cache is warmed at start",
    "snake_case names for every column; cache_eviction tuned twice",
    "nothing about caching here",
]
QUERIES = ["cache_eviction", "Caroline's cache", "eviction storms", "snake_case column"]


def _engine(tmp_path: Path, db: str | None) -> Engine:
    overrides = {"home": str(tmp_path / "home"), "namespace": "p", "embed_provider": "none"}
    if db is not None:
        overrides["db_path"] = db
    return Engine(Settings.load(overrides, environ={}))


def _ranks(engine: Engine, query: str) -> dict[str, float]:
    postings = engine.text_index.scorer(engine.conn)
    assert postings is not None
    scores = engine.text_index.scores(
        engine.conn, postings, SearchQuery.parse(query, utcnow()).fts_terms
    )
    assert scores is not None
    content = {r[0]: r[1] for r in engine.conn.execute("SELECT rowid, content FROM memories")}
    return {content[rowid]: rank for rowid, rank in scores.best(10)}


def test_bm25_with_phrases_is_sqlites_on_postgresql(tmp_path: Path, pg_store_url: str) -> None:
    with _engine(tmp_path, None) as lite, _engine(tmp_path, pg_store_url) as pg:
        for text in ROWS:
            lite.store(text)
            pg.store(text)
        for _ in range(2):  # SQLite builds its in-memory index on the second search
            lite.text_index.scorer(lite.conn)
        assert lite.text_index.wait(30)
        for query in QUERIES:
            expected = _ranks(lite, query)
            got = _ranks(pg, query)
            assert expected, query
            assert got.keys() == expected.keys(), query
            for text, rank in expected.items():
                assert got[text] == pytest.approx(rank, rel=1e-12), (query, text)
        assert pg.text_index.builds == 1  # built on the first search, without being asked twice

        # a row stored, changed and deleted since is seen by the next search (the change log)
        new = pg.store("cache_eviction again, by another process").id
        lite.store("cache_eviction again, by another process")
        assert _ranks(pg, "cache_eviction") == pytest.approx(_ranks(lite, "cache_eviction"))
        pg.delete(new)
        assert "cache_eviction again, by another process" not in _ranks(pg, "cache_eviction")
        assert pg.text_index.builds == 1


def test_a_search_on_postgresql_finds_by_phrase_and_filters(
    tmp_path: Path, pg_store_url: str
) -> None:
    with _engine(tmp_path, pg_store_url) as pg:
        ids = [pg.store(text, tags=["t"] if i == 3 else None).id for i, text in enumerate(ROWS)]
        hits = pg.search("cache_eviction")
        assert {h.memory.id for h in hits[:2]} == {ids[0], ids[3]}  # the phrase's rows first
        tagged = pg.search("cache_eviction", tags=["t"])
        assert [h.memory.id for h in tagged] == [ids[3]]
        assert pg.search("cache", namespace="elsewhere") == []
