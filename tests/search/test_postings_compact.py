"""The in-memory text index kept compact (issue 16, 1M memories): built batch by batch, its
frequencies as codes into a table, its vocabulary one sorted blob - and still FTS5's bm25()."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memlode.config import Settings
from memlode.engine import Engine
from memlode.search import postings as postings_module
from memlode.search.fts import BM25_WEIGHTS, fts_query, query_terms
from memlode.search.postings import FtsTokenizer, Postings, Vocabulary, build_postings
from memlode.search.text_index import score_query

WORDS = (
    "deploy deployed cache caching naïve café Résumé 東京 straße retry retries queue "
    "parse_config loadUserProfile HTTPServer v2 2024 caroline's don't C++ e-mail the of"
).split()


def _store(home: Path, rows: int, seed: int) -> Engine:
    engine = Engine(Settings.load({"home": str(home), "namespace": "n", "embed_provider": "none"}))
    rng = random.Random(seed)
    for i in range(rows):
        words = rng.choices(WORDS, k=rng.randint(1, 25))
        engine.store(" ".join(words) + f" row{i}", tags=rng.sample(["ops", "db", "queue"], 1))
    # conversation context columns on some rows: their weights make other frequency values
    for (rowid,) in engine.conn.execute("SELECT rowid FROM memories LIMIT 30").fetchall():
        engine.conn.execute(
            "UPDATE memories SET context_near = ?, context_far = ? WHERE rowid = ?",
            (" ".join(rng.choices(WORDS, k=8)), " ".join(rng.choices(WORDS, k=12)), rowid),
        )
    return engine


def _fts_ranks(conn: sqlite3.Connection, terms: list[str]) -> dict[int, float]:
    weights = ", ".join(map(str, BM25_WEIGHTS))
    rows = conn.execute(
        f"SELECT rowid, bm25(memories_fts, {weights}) FROM memories_fts WHERE memories_fts MATCH ?",
        (fts_query(terms),),
    )
    return {rowid: -score for rowid, score in rows}


def _same_as_fts5(postings: Postings, conn: sqlite3.Connection) -> None:
    for query in ("deploy cache queue", "naive cafe 東京 straße", "retries v2 2024 ops", "row7"):
        terms = query_terms(query)
        scores = score_query(postings, FtsTokenizer(conn), conn, terms)
        assert scores is not None
        expected = _fts_ranks(conn, terms)
        assert expected
        assert scores.matched() == len(expected)
        # bit for bit: the same doubles summed in the same order as bm25()
        assert scores.ranks(expected) == expected
        best = sorted(expected.items(), key=lambda item: (-item[1], item[0]))[:10]
        assert [r for r, _ in scores.best(10)] == [r for r, _ in best]


def test_many_small_batches_give_fts5s_scores(tmp_path: Path, monkeypatch) -> None:
    engine = _store(tmp_path, 300, 3)
    monkeypatch.setattr(postings_module, "_BATCH", 13)  # 24 batches: entries summed per batch
    built = build_postings(engine.conn, FtsTokenizer(engine.conn))
    assert built is not None
    assert built.docs.dtype.itemsize == 4 and built.freq_table is not None
    _same_as_fts5(built, engine.conn)
    monkeypatch.setattr(postings_module, "_BATCH", 100_000)
    whole = build_postings(engine.conn, FtsTokenizer(engine.conn))
    assert whole is not None
    assert (whole.docs == built.docs).all() and (whole.starts == built.starts).all()
    assert (whole.lengths == built.lengths).all() and whole.tokens == built.tokens
    engine.close()


def test_too_many_distinct_frequencies_keep_the_doubles(tmp_path: Path, monkeypatch) -> None:
    engine = _store(tmp_path, 200, 5)
    monkeypatch.setattr(postings_module, "_BATCH", 17)
    monkeypatch.setattr(postings_module, "FREQ_CODES", 3)  # the store has more than three
    built = build_postings(engine.conn, FtsTokenizer(engine.conn))
    assert built is not None
    assert built.freq_table is None and built.freqs.dtype.kind == "f"
    _same_as_fts5(built, engine.conn)
    engine.close()


@settings(max_examples=50, deadline=None)
@given(
    tokens=st.sets(st.text(min_size=1, max_size=12), max_size=60),
    others=st.lists(st.text(max_size=12), max_size=20),
)
def test_vocabulary_finds_every_token_and_nothing_else(tokens: set[str], others: list[str]) -> None:
    tokens = {t for t in tokens if not any(0xD800 <= ord(c) <= 0xDFFF for c in t)}
    given_ids = {token: i for i, token in enumerate(tokens)}
    vocab = Vocabulary(given_ids)
    assert len(vocab) == len(tokens)
    found = {token: vocab.get(token) for token in tokens}
    # ids are the places in sorted order, and ``order`` maps the given ids to them
    assert [found[t] for t in sorted(tokens)] == list(range(len(tokens)))
    for token, i in given_ids.items():
        assert vocab.order[i] == found[token]
    for other in others:
        if other not in tokens:
            assert vocab.get(other) is None
