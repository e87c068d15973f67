"""A search query, split once: its words for the signals, its full-text terms, its time.

Every stage of a hybrid search reads the query from here (the in-memory text index, the FTS5
expressions, tag matching, temporal alignment); only the vector side reads the text itself, to
embed it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from memlode.search.signals import TimeHint, time_hint
from memlode.search.word_forms import with_word_forms
from memlode.textutil import STOPWORDS, query_terms

__all__ = ["SearchQuery"]

# Words that ask about something that went wrong ("why did the push fail", "the commit got
# bounced", "git refused to stage it", "the tests couldn't see the rows"): such a question is
# answered by what failed, which the hooks store as observations tagged ``failure``.
_ASKS_ABOUT_FAILURE = re.compile(
    r"\b(?:fail\w*|errors?|erro?red|broke|broken|bounced?|refus\w*|reject\w*|blocked|blocking"
    r"|denied|crash\w*|wrong|complain\w*|(?:could|did|would|was|were|is|does)n[\'\u2019]?t"
    r"|can[\'\u2019]?t|cannot|won[\'\u2019]?t)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class SearchQuery:
    text: str
    words: frozenset[str]  # lower-case words and identifier parts, stop words dropped
    fts_terms: list[str]  # what BM25 ORs: the words in order, plus irregular verb forms
    hint: TimeHint | None  # the time the query names, if any
    asks_about_failure: bool  # it asks what went wrong (``_ASKS_ABOUT_FAILURE``)

    @classmethod
    def parse(cls, text: str, now: datetime) -> SearchQuery:
        terms = query_terms(text)
        return cls(
            text,
            frozenset(terms),
            with_word_forms(terms, STOPWORDS),
            time_hint(text, now),
            _ASKS_ABOUT_FAILURE.search(text) is not None,
        )
