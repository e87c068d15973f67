"""The per-candidate signals recall computes for every candidate of every query."""

from __future__ import annotations

import pytest

from memlode.search.signals import tag_match


@pytest.mark.parametrize(
    ("terms", "tags", "expected"),
    [
        (["auth"], ["area:auth", "db"], 0.5),
        (["name"], ["user-name", "user_name", "User.Name", "username"], 0.75),
        (["x"], [], 0.0),
        ([], ["x"], 0.0),
        (["api", "db"], ["db/api", "API v2", "ops"], 2 / 3),
    ],
)
def test_tag_match_is_the_share_of_tags_the_query_names(
    terms: list[str], tags: list[str], expected: float
) -> None:
    assert tag_match(terms, tags) == pytest.approx(expected)
    assert tag_match(frozenset(terms), tags) == pytest.approx(expected)
    assert tag_match(set(terms), tuple(tags)) == pytest.approx(expected)
