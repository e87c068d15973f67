"""Irregular verb forms in BM25 queries: a question in one tense finds a memory in another."""

from __future__ import annotations

from memlode.engine import Engine
from memlode.search.fts import STOPWORDS, bm25_terms, query_terms
from memlode.search.hybrid import recall
from memlode.search.word_forms import forms_of, with_word_forms
from memlode.types import utcnow


def test_each_form_brings_the_others() -> None:
    assert set(forms_of("went")) == {"go", "gone"}
    assert set(forms_of("go")) == {"went", "gone"}
    assert set(forms_of("going")) == {"go", "went", "gone"}  # stems to "go" in FTS5
    assert set(forms_of("running")) == {"run", "ran"}
    assert set(forms_of("making")) == {"make", "made"}
    assert forms_of("visited") == ()  # regular: the stemmer already joins it
    assert forms_of("sites") == ()  # not a form of "sit"


def test_forms_follow_the_terms_once_and_skip_stop_words() -> None:
    assert with_word_forms(["met", "meet", "friends"]) == ["met", "meet", "friends"]
    assert with_word_forms(["bought", "kayak"]) == ["bought", "kayak", "buy"]
    assert "won" not in with_word_forms(["win"], STOPWORDS)


def test_bm25_terms_extend_query_terms() -> None:
    query = "Where did Caroline go last week?"
    assert bm25_terms(query) == [*query_terms(query), "went", "gone"]
    assert bm25_terms("who won") == query_terms("who won")  # a query of stop words stays


def test_a_question_in_one_tense_finds_the_memory_in_another(engine: Engine) -> None:
    bought = engine.store("We bought a second-hand kayak at the harbour market")
    engine.store("The harbour market opens on Saturdays")
    engine.store("Kayak lessons start in June")
    params = engine.recall_params()
    hits = recall(engine.conn, "what did they buy", engine.filter(), 3, params, now=utcnow())
    assert [h.memory.id for h in hits] == [bought.id]
    hits = recall(
        engine.conn, "when did they buy the kayak", engine.filter(), 3, params, now=utcnow()
    )
    assert hits[0].memory.id == bought.id
