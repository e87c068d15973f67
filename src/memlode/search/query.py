"""A search query, split once: its words for the signals, its full-text terms, its time.

Every stage of a hybrid search reads the query from here (the in-memory text index, the FTS5
expressions, tag matching, temporal alignment); only the vector side reads the text itself, to
embed it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memlode.search.signals import TimeHint, time_hint
from memlode.search.word_forms import with_word_forms
from memlode.textutil import STOPWORDS, query_terms

__all__ = ["SearchQuery"]


@dataclass(frozen=True, slots=True)
class SearchQuery:
    text: str
    words: frozenset[str]  # lower-case words and identifier parts, stop words dropped
    fts_terms: list[str]  # what BM25 ORs: the words in order, plus irregular verb forms
    hint: TimeHint | None  # the time the query names, if any

    @classmethod
    def parse(cls, text: str, now: datetime) -> SearchQuery:
        terms = query_terms(text)
        return cls(text, frozenset(terms), with_word_forms(terms, STOPWORDS), time_hint(text, now))
