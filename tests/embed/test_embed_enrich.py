"""enrich: the one-line context header prepended before embedding."""

from __future__ import annotations

from memlode.embed import MAX_RELATIONSHIPS, enrich
from memlode.types import MemoryType, Relationship


def test_full_header() -> None:
    text = enrich(
        "Use RS256 for tokens",
        memory_type=MemoryType.DECISION,
        namespace="myproj",
        tags=["auth", "jwt"],
        relationships=[(Relationship.EVOLVED_INTO, "auth.py"), ("CALLS", "login")],
    )
    assert text == (
        "[decision | ns: myproj | tags: auth, jwt | rel: EVOLVED_INTO auth.py; CALLS login]\n"
        "Use RS256 for tokens"
    )


def test_nothing_to_say_leaves_the_text_alone() -> None:
    assert enrich("plain") == "plain"
    assert enrich("plain", memory_type="", namespace="  ", tags=["", " "]) == "plain"


def test_partial_headers() -> None:
    assert enrich("t", memory_type="insight") == "[insight]\nt"
    assert enrich("t", namespace="api") == "[ns: api]\nt"
    assert enrich("t", tags=("b", "a", "b")) == "[tags: b, a]\nt"


def test_at_most_eight_relationships() -> None:
    rels = [("RELATES_TO", f"f{i}.py") for i in range(12)]
    header = enrich("t", relationships=rels).split("\n", 1)[0]
    assert MAX_RELATIONSHIPS == 8
    assert header.count("RELATES_TO") == 8
    assert "f7.py" in header
    assert "f8.py" not in header


def test_header_stays_one_well_formed_line() -> None:
    text = enrich(
        "body\nsecond line",
        memory_type="decision",
        namespace="a|b",
        tags=["x]y", "multi\nline"],
        relationships=[("CALLS", "a; b")],
    )
    header, body = text.split("\n", 1)
    assert body == "body\nsecond line"
    assert header == "[decision | ns: a b | tags: x y, multi line | rel: CALLS a, b]"
