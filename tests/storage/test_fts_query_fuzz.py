"""Any string is a valid search: the FTS sanitiser is fuzzed against a real FTS5 index."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memlode.config import Settings
from memlode.engine import Engine
from memlode.errors import InvalidInput
from memlode.search.fts import bm25_search, fts_query, query_terms
from memlode.storage.values import MemoryFilter

# Characters with a meaning in FTS5 query syntax, plus some that tokenizers disagree about.
FTS_SYNTAX = "\"*^:()+-{}[],.;NEARANDORNOT_ \t\n\\'`~!@#$%&|<>=?/"
TRICKY = (
    "²³½ǅǈﬁẞßİı\u0301\u200b\u00a0\u3000日本語한국어"
    "\u0627\u0644\u0639\u0631\u0628\u064a\u0629🙂🚀👩\u200d💻\x00\x7f"
)

queries = st.one_of(
    st.text(),
    st.text(alphabet=st.characters(blacklist_categories=())),  # surrogates and controls too
    st.text(alphabet=FTS_SYNTAX + TRICKY + "abcXYZ019", max_size=40),
    st.lists(
        st.sampled_from(
            [
                "AND",
                "OR",
                "NOT",
                "NEAR",
                "NEAR(",
                '"',
                "*",
                "^",
                "col:",
                "getUserName",
                "user",
                "(",
                ")",
                "-",
                "+",
                "name",
                "0x1F",
                "🙂",
                "ǅ",
                "²",
            ]
        ),
        max_size=12,
    ).map(" ".join),
)

CORPUS = [
    "getUserName returns the user's display name",
    'The "quoted" NEAR operator AND star* handling',
    "Größenänderung des Caches 🚀 über Nacht",
    "HTTPServer and parse_json_body in the API layer",
    "日本語のメモ and 한국어 메모",
    "x² + y² = z²",
]


@pytest.fixture
def fts_engine(tmp_path: Path) -> Engine:
    eng = Engine(Settings.load({"db_path": str(tmp_path / "fuzz.db"), "namespace": "fuzz"}))
    for text in CORPUS:
        eng.store(text)
    return eng


def test_query_terms_examples() -> None:
    assert query_terms("user name") == ["user", "name"]
    assert query_terms("getUserName") == ["getusername", "get", "user", "name"]
    assert query_terms("the of and") == ["the", "of", "and"]  # all stopwords: keep them
    assert query_terms('"" *** ^:') == []
    assert fts_query([]) == ""
    assert fts_query(["a", 'b"c']) == '"a" OR "b""c"'


def test_any_query_is_valid_for_bm25_search(fts_engine: Engine) -> None:
    conn = fts_engine.conn
    flt = MemoryFilter(namespace="fuzz")

    @settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(queries, st.booleans())
    def check(query: str, drop_stopwords: bool) -> None:
        expression = fts_query(query_terms(query, drop_stopwords=drop_stopwords))
        assert isinstance(expression, str)
        hits = bm25_search(conn, query, flt, 10, drop_stopwords=drop_stopwords)
        assert len(hits) <= 10
        assert all(isinstance(h.rank, float) for h in hits)

    try:
        check()
    finally:
        fts_engine.close()


def test_any_query_is_valid_for_engine_search(fts_engine: Engine) -> None:
    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(queries)
    def check(query: str) -> None:
        try:
            hits = fts_engine.search(query, 5, sources=())
        except InvalidInput:
            assert not query.strip()  # only an empty query is refused
            return
        assert len(hits) <= 5

    try:
        check()
    finally:
        fts_engine.close()


def test_sanitised_queries_still_find_things(fts_engine: Engine) -> None:
    conn = fts_engine.conn
    flt = MemoryFilter(namespace="fuzz")
    try:
        for query, expected in [
            ("user name", CORPUS[0]),
            ('"quoted" AND (star*', CORPUS[1]),
            ("NEAR(operator", CORPUS[1]),
            ("caches🚀", CORPUS[2]),
            ("HTTP server", CORPUS[3]),
            ("json body", CORPUS[3]),
        ]:
            hits = bm25_search(conn, query, flt, 3)
            found = fts_engine.get(hits[0].id, touch=False).content if hits else None
            assert found == expected, query
    finally:
        fts_engine.close()
