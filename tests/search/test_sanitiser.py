"""Any string is a valid query: the sanitiser never lets FTS5 syntax through."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memlode.engine import Engine
from memlode.search.fts import bm25_search, fts_query, query_terms
from memlode.storage.values import MemoryFilter

NASTY = ['"', "'", "AND", "OR", "NOT", "NEAR(", "*", "^", ":", "(", ")", "-", "+", "{", "}"]


def test_query_terms_split_identifiers() -> None:
    assert query_terms("getUserName") == ["getusername", "get", "user", "name"]
    assert query_terms("the HTTPServer") == ["httpserver", "http", "server"]
    assert query_terms("the of a") == ["the", "of", "a"]  # all stopwords: keep them
    assert fts_query([]) == ""


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.one_of(st.text(max_size=12), st.sampled_from(NASTY)), max_size=8).map(" ".join))
def test_any_query_runs(engine: Engine, query: str) -> None:
    if not engine.list_memories(limit=1):
        engine.store('quoted "text" with AND OR NEAR operators * ^ : and ünïcödé 🎉')
    bm25_search(engine.conn, query, MemoryFilter(namespace="test"), 5)
    if query.strip():
        engine.search(query, k=3)
