"""The in-memory copy of the FTS index: its scores are FTS5's bm25() for every row, it follows
inserts, updates and deletes through the change log, and the engine ranks the same with it."""

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
from memlode.search.fts import BM25_WEIGHTS, Bm25Query, bm25_terms, fts_query, query_terms
from memlode.search.postings import FtsTokenizer, Postings, build_postings
from memlode.search.text_index import TextIndex, score_query
from memlode.storage.values import MemoryFilter

WORDS = [
    "deploy", "deployed", "deploying", "cache", "caching", "cached", "migration", "migrations",
    "naïve", "café", "Résumé", "tokenizer", "ÅNGSTRÖM", "x²", "東京", "straße", "run", "runs",
    "running", "the", "a", "of", "retry", "retries", "queue", "parse_config", "loadUserProfile",
    "HTTPServer", "v2", "2024", "caroline\u2019s", "caroline's", "don't", "C++", "foo.bar",
    "e-mail",
]  # fmt: skip
SEPARATORS = [" ", "  ", ", ", ". ", "\n", " — ", "/", "(", ") ", "\t", ";", " - "]


def _text(rng: random.Random, size: int) -> str:
    out: list[str] = []
    for _ in range(size):
        out.append(rng.choice(WORDS))
        out.append(rng.choice(SEPARATORS))
    return "".join(out).strip()


def _fts_ranks(conn: sqlite3.Connection, terms: list[str]) -> dict[int, float]:
    weights = ", ".join(map(str, BM25_WEIGHTS))
    rows = conn.execute(
        f"SELECT rowid, bm25(memories_fts, {weights}) FROM memories_fts WHERE memories_fts MATCH ?",
        (fts_query(terms),),
    )
    return {rowid: -score for rowid, score in rows}


def _assert_same_scores(postings: Postings, conn: sqlite3.Connection, terms: list[str]) -> None:
    scores = score_query(postings, FtsTokenizer(conn), conn, terms)
    assert scores is not None
    expected = _fts_ranks(conn, terms)
    assert scores.matched() == len(expected)
    got = scores.ranks(expected)
    assert set(got) == set(expected)
    for rowid, rank in expected.items():
        assert got[rowid] == pytest.approx(rank, rel=1e-12, abs=0.0)
    best = sorted(expected.items(), key=lambda item: (-item[1], item[0]))[:10]
    assert [r for r, _ in scores.best(10)] == [r for r, _ in best]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    home = tmp_path_factory.mktemp("text-index")
    engine = Engine(
        Settings.load({"home": str(home), "namespace": "main", "embed_provider": "none"})
    )
    rng = random.Random(11)
    for i in range(400):
        engine.store(
            _text(rng, rng.randint(0 if i % 50 == 0 else 1, 30)) or "x",
            tags=rng.sample(["ops", "db", "naïve-tag", "retry_policy"], rng.randint(0, 2)),
        )
    # conversation context columns, weighted below the row's own text
    conn = engine.conn
    rowids = [r for (r,) in conn.execute("SELECT rowid FROM memories ORDER BY rowid LIMIT 60")]
    for rowid in rowids:
        conn.execute(
            "UPDATE memories SET context_near = ?, context_far = ? WHERE rowid = ?",
            (_text(rng, 12), _text(rng, 20), rowid),
        )
    try:
        yield engine
    finally:
        engine.close()


QUERIES = [
    "deploy caching",
    "Why did the migrations fail after deploying?",
    "naive cafe resume",  # diacritics folded by the tokenizer
    "ångström 東京",
    "parse_config loadUserProfile",  # phrases of several tokens, scored by FTS5
    "caroline's retries",
    "C++ foo.bar e-mail",
    "HTTPServer v2 2024",
    "ops db",
    "nothingmatchesthis",
]


@pytest.mark.parametrize("query", QUERIES)
def test_scores_are_bm25s_for_every_row(store: Engine, query: str) -> None:
    conn = store.conn
    postings = build_postings(conn, FtsTokenizer(conn))
    assert postings is not None
    _assert_same_scores(postings, conn, query_terms(query))


def test_statistics_match_the_fts_index(store: Engine) -> None:
    conn = store.conn
    postings = build_postings(conn, FtsTokenizer(conn))
    assert postings is not None
    assert postings.rows == conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.check_vocab"
        " USING fts5vocab(main, memories_fts, row)"
    )
    terms, instances = conn.execute("SELECT count(*), sum(cnt) FROM temp.check_vocab").fetchone()
    assert postings.tokens == instances
    assert len(postings.vocab) == terms


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=st.text(min_size=1, max_size=40))
def test_any_query_scores_like_fts5(store: Engine, query: str) -> None:
    conn = store.conn
    postings = _cached_postings(store)
    terms = query_terms(query)
    scores = score_query(postings, FtsTokenizer(conn), conn, terms)
    if not terms:
        return
    if scores is None:  # a word FTS5 makes no token of: the caller leaves it to FTS5
        assert any(not FtsTokenizer(conn).tokens(t) for t in terms)
        return
    expected = _fts_ranks(conn, terms)
    assert scores.ranks(expected) == pytest.approx(expected, rel=1e-12)
    assert scores.matched() == len(expected)


_POSTINGS: dict[int, Postings] = {}


def _cached_postings(engine: Engine) -> Postings:
    found = _POSTINGS.get(id(engine))
    if found is None:
        built = build_postings(engine.conn, FtsTokenizer(engine.conn))
        assert built is not None
        found = _POSTINGS[id(engine)] = built
    return found


def test_tokens_are_the_fts_tables(store: Engine) -> None:
    conn = store.conn
    tokenizer = FtsTokenizer(conn)
    assert tokenizer.tokens("Running naïve Caroline\u2019s parse_config x² 東京") == [
        "run", "naiv", "carolin", "s", "pars", "config", "x²", "東京",
    ]  # fmt: skip
    assert tokenizer.tokens("") == []
    assert tokenizer.tokens("—") == []


def _engine(home: Path) -> Engine:
    return Engine(Settings.load({"home": str(home), "namespace": "main", "embed_provider": "none"}))


def test_follows_inserts_updates_and_deletes(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    rng = random.Random(5)
    ids = [engine.store(_text(rng, 15)).id for _ in range(120)]
    index = TextIndex(engine.db)
    conn = engine.conn
    assert index.scorer(conn) is None  # the first search never builds
    assert index.scorer(conn) is None  # the second starts the build in the background
    assert index.wait(30)
    postings = index.scorer(conn)
    assert postings is not None
    terms = query_terms("deploy caching migrations naïve retry queue")
    _assert_same_scores(postings, conn, terms)

    # every kind of change, then the same scores as FTS5 again
    engine.store("deploy the caching layer twice: deploy deploy", tags=["queue"])
    engine.update(ids[0], content="naïve retry of the migrations queue")
    engine.delete(ids[1])
    engine.delete(ids[2])
    conn.execute("UPDATE memories SET context_near = 'deploy queue' WHERE id = ?", (ids[3],))
    refreshed = index.scorer(conn)
    assert refreshed is postings  # applied in place, no rebuild
    assert postings.overlay_rows
    _assert_same_scores(postings, conn, terms)
    # the same row changed again: its overlay entry is replaced, not added to
    engine.update(ids[0], content="queue queue queue")
    assert index.scorer(conn) is postings
    _assert_same_scores(postings, conn, terms)
    assert postings.rows == conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    index.close()
    engine.close()


def test_falls_behind_then_rebuilds(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    rng = random.Random(9)
    for _ in range(50):
        engine.store(_text(rng, 10))
    index = TextIndex(engine.db)
    conn = engine.conn
    index.scorer(conn)
    index.scorer(conn)
    assert index.wait(30)
    assert index.scorer(conn) is not None
    assert index.builds == 1
    # more changed rows than the overlay may hold: FTS5 answers while it is read again. Stored
    # as documents, which the supersession rules do not read (they took ~10 of the test's 12 s
    # for these 2,100 rows of random words); the change log holds a row per insert either way.
    engine.store_many([engine.new_memory(_text(rng, 3), source="doc") for _ in range(2_100)])
    assert index.scorer(conn) is None
    assert index.wait(30)
    postings = index.scorer(conn)
    assert postings is not None
    assert index.builds == 2
    _assert_same_scores(postings, conn, query_terms("deploy cache retries queue"))
    index.close()
    engine.close()


def test_change_log_records_and_prunes(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    conn = engine.conn
    first = engine.store("one").id
    engine.update(first, content="two")
    engine.update(first, importance=0.9)  # not a text change: not logged
    engine.delete(first)
    rows = conn.execute("SELECT row FROM memories_fts_log ORDER BY seq").fetchall()
    rowid = rows[0][0]
    assert [r for (r,) in rows] == [rowid, rowid, rowid]
    conn.execute("INSERT INTO memories_fts_log (seq, row) VALUES (200000, 1)")
    oldest = conn.execute("SELECT min(seq) FROM memories_fts_log").fetchone()[0]
    assert oldest > 200000 - 100000 - 1
    engine.close()


def test_phrase_of_many_rows_is_left_to_fts5(store: Engine) -> None:
    conn = store.conn
    postings = _cached_postings(store)
    terms = ["parse_config"]
    matches = len(_fts_ranks(conn, terms))
    assert matches > 3
    tokenizer = FtsTokenizer(conn)
    assert score_query(postings, tokenizer, conn, terms, phrase_budget=matches) is not None
    assert score_query(postings, tokenizer, conn, terms, phrase_budget=matches - 1) is None


def test_engine_ranks_the_same_with_the_index(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    rng = random.Random(21)
    for _ in range(300):
        engine.store(_text(rng, rng.randint(3, 25)), tags=rng.sample(["ops", "db"], 1))
    before = {q: engine.search(q, k=10) for q in QUERIES}  # FTS5: the index is not built yet
    assert engine.text_index.wait(30)
    assert engine.text_index.scorer(engine.conn) is not None
    for query, hits in before.items():
        after = engine.search(query, k=10)
        assert [h.memory.id for h in after] == [h.memory.id for h in hits], query
        bm25 = [h.signals.get("bm25") for h in hits]
        assert [h.signals.get("bm25") for h in after] == pytest.approx(bm25, rel=1e-12)
        # recency moves with the clock between the two searches
        assert [h.score for h in after] == pytest.approx([h.score for h in hits], rel=1e-6)
    # a filter few rows pass: its rows are found beyond the first windows of best rows
    # (long rows that say "deploy" once: below every other row that has the word)
    notes = [f"note {i} " + "filler " * 60 + "deploy" for i in range(3)]
    for note in notes:
        engine.store(note, namespace="other")
    filtered = engine.search("deploy caching", k=5, namespace="other")
    assert sorted(h.memory.content for h in filtered) == notes
    engine.close()


def test_filtered_top_looks_past_the_first_windows(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    for i in range(150):
        engine.store(f"deploy caching {i}")
    # long rows that say "deploy" once: below every other row that has the word
    notes = [f"note {i} " + "filler " * 60 + "deploy" for i in range(3)]
    for note in notes:
        engine.store(note, namespace="other")
    conn = engine.conn
    postings = build_postings(conn, FtsTokenizer(conn))
    assert postings is not None
    scores = score_query(postings, FtsTokenizer(conn), conn, ["deploy", "caching"])
    assert scores is not None
    flt = MemoryFilter(namespace="other")
    hits = Bm25Query(conn, bm25_terms("deploy caching"), 2, scores=scores).top(flt)
    assert len(hits) == 2
    expected = Bm25Query(conn, bm25_terms("deploy caching"), 2).top(flt)  # FTS5's answer
    assert [(h.id, h.rank) for h in hits] == [(h.id, pytest.approx(h.rank)) for h in expected]
    engine.close()


def test_sparse_rowids_leave_bm25_to_fts5(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    near = engine.store("deploy nearby").id
    # a copy of it under a rowid far beyond the row count (memlode never makes one; a store
    # written by other tools might)
    columns = [r[1] for r in engine.conn.execute("PRAGMA table_info(memories)")]
    changed = {"id": "'far'", "content": "'deploy far away'", "content_hash": "'far'"}
    picked = ", ".join(changed.get(c, c) for c in columns)
    engine.conn.execute(
        f"INSERT INTO memories (rowid, {', '.join(columns)})"
        f" SELECT 50000000, {picked} FROM memories WHERE id = ?",
        (near,),
    )
    index = TextIndex(engine.db)
    index.scorer(engine.conn)
    index.scorer(engine.conn)
    assert index.wait(30)
    assert index.scorer(engine.conn) is None
    assert index.builds == 0
    # the engine still finds both rows, through FTS5
    hits = engine.search("deploy", k=5)
    assert sorted(h.memory.content for h in hits) == ["deploy far away", "deploy nearby"]
    index.close()
    engine.close()


def test_sees_rows_another_process_wrote(tmp_path: Path) -> None:
    server = _engine(tmp_path)  # a long-lived process (the MCP server)
    rng = random.Random(2)
    for _ in range(40):
        server.store(_text(rng, 8))
    server.search("deploy")
    server.search("cache")
    assert server.text_index.wait(30)
    assert server.text_index.scorer(server.conn) is not None
    hook = _engine(tmp_path)  # another connection writes, as a hook process does
    new = hook.store("zanzibar migration written elsewhere").id
    hook.close()
    hits = server.search("zanzibar", k=3)
    assert [h.memory.id for h in hits] == [new]
    assert server.text_index.builds == 1  # applied from the change log, not rebuilt
    server.close()
