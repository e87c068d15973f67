"""A question about what went wrong ranks what failed first: observations tagged ``failure``
(the hooks' record of a failed tool call) get a share of the best score when the query asks
about a failure, and nothing otherwise."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memlode.engine import Engine
from memlode.search.hybrid import recall
from memlode.search.query import SearchQuery
from memlode.search.recall_params import DEFAULT_FAILURE_BOOST, RecallParams
from memlode.types import utcnow

FAILED = (
    "Failed: $ git commit -m 'add tracing packages'\n"
    "Pre-commit validation failed: [FORMAT] mix format --check-formatted: 2 files unformatted"
)
NOTES = [
    "The commit for the tracing packages added six dependencies to mix.exs and the lock file.",
    "Commit message for the tracing packages: feat: add dependencies and runtime defaults.",
    "The tracing packages commit was reviewed; the dependencies are pinned to minor versions.",
]


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("Why did the commit for the tracing packages get bounced?", True),
        ("the push failed, what did git say", True),
        ("tests couldn't see the rows", True),
        ("Which blocks of code handle tracing?", False),
        ("What did the commit for the tracing packages add?", False),
    ],
)
def test_a_query_that_asks_about_failure_is_recognised(text: str, asks: bool) -> None:
    query = SearchQuery.parse(text, datetime(2026, 1, 1, tzinfo=UTC))
    assert query.asks_about_failure is asks


def test_what_failed_answers_a_question_about_failure(engine: Engine) -> None:
    failed = engine.store(FAILED, "context", tags=["failure", "command"]).id
    for note in NOTES:
        engine.store(note, "context")
    engine.embed_pending()
    flt = engine.filter(None, None, None, ())
    asked = "Why did the commit for the tracing packages get bounced?"

    def ranked(query: str, boost: float) -> list[str]:
        params = RecallParams(weights=engine.get_weights(), failure_boost=boost)
        hits = recall(engine.conn, query, flt, 4, params, now=utcnow())
        return [h.memory.id for h in hits]

    plain = ranked(asked, 0.0)
    assert plain.index(failed) > 0  # the notes share more of the question's words
    assert ranked(asked, DEFAULT_FAILURE_BOOST).index(failed) < plain.index(failed)
    # the engine's search gives the boost too, and says so in the hit's signals
    boosted = {h.memory.id: h for h in engine.search(asked, 4)}
    assert boosted[failed].signals["failure"] > 0
    assert all("failure" not in h.signals for i, h in boosted.items() if i != failed)
    # a question that does not ask what went wrong is ranked as without the boost
    neutral = "What did the commit for the tracing packages add?"
    assert ranked(neutral, DEFAULT_FAILURE_BOOST) == ranked(neutral, 0.0)
    assert all("failure" not in h.signals for h in engine.search(neutral, 4))
