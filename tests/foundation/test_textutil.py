"""``memlode.textutil`` splits text with plain loops in a process without ``re`` (a hook); these
tests hold both paths to the rules written as regular expressions, for ASCII and non-ASCII text."""

from __future__ import annotations

import hashlib
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlode import textutil

_WORD = re.compile(r"\w+", re.UNICODE)
_CAMEL = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def _parts(token: str) -> list[str]:
    """The rule: split on "_", then camel-case runs; lower-cased; [] for a single part."""
    pieces = [p.lower() for chunk in token.split("_") if chunk for p in _CAMEL.findall(chunk)]
    return pieces if len(pieces) >= 2 else []


def _search_terms(text: str, limit: int = 2000) -> str:
    seen: dict[str, None] = {}
    for token in _WORD.findall(text):
        if token.islower() or token.isupper() or token.isdigit() or "_" in token:
            continue
        for part in _parts(token):
            seen.setdefault(part, None)
            if len(seen) >= limit:
                return " ".join(seen)
    return " ".join(seen)


@pytest.mark.parametrize(
    "text",
    [
        "Read auth.py lines 1-3 of 3; defines login",
        "getUserName HTTPServer parseJSON2 x86_64",
        "Python3 and abc2 and ABC2 and Read2",
        "Ünïcode Straße ΑΒΓ getÜber",
        "a_Foo and _Bar and foo_Bar",
        "exp=3600 exp=60",
        "$ pytest -q\n[stdout]\n3 passed",
        "",
    ],
)
def test_examples_follow_the_rules(text: str) -> None:
    assert textutil.content_hash(text) == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert textutil.search_terms(text) == _search_terms(text)
    assert textutil.words(text) == _WORD.findall(text)


def test_known_splits() -> None:
    assert textutil.identifier_parts("HTTPServer") == ["http", "server"]
    assert textutil.identifier_parts("getUserName") == ["get", "user", "name"]
    assert textutil.identifier_parts("parseJSON2") == ["parse", "json", "2"]
    assert textutil.identifier_parts("plain") == []
    # an acronym's plural is one word: "ms" and "ls" of "VMs" and "URLs" match other text
    assert textutil.identifier_parts("VMs") == []
    assert textutil.identifier_parts("listURLsFor") == ["list", "urls", "for"]
    assert textutil.identifier_parts("APIsandCIs") == ["ap", "isand", "cis"]
    assert textutil.search_terms("getUserToken and x86_64") == "get user token"


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=st.sampled_from("aAbBHTsz09_ .-\né"), max_size=60) | st.text(max_size=40))
def test_words_parts_and_terms_follow_the_rules(text: str) -> None:
    assert textutil.words(text) == _WORD.findall(text)
    for token in _WORD.findall(text):
        assert textutil.identifier_parts(token) == _parts(token)
    assert textutil.search_terms(text) == _search_terms(text)
    assert textutil.search_terms(text, limit=3) == _search_terms(text, limit=3)


# ASCII seams, and characters where Unicode and the patterns part ways: letters outside [A-Za-z]
# (é, Ü, ß), a titlecase letter (ǅ), a digit of another script (٣: \d), a digit that is not
# decimal (²: \w, not \d), a letter whose lower case is two characters (İ), an ellipsis.
_SEAMS = "aAbBHTsz09_ .-\néÜßǅ٣²İ…"


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=st.sampled_from(_SEAMS), max_size=60) | st.text(max_size=40))
def test_the_loops_a_hook_uses_follow_the_rules(text: str) -> None:
    """In a process without ``re`` (a hook) text is split by loops; here ``re`` is loaded, so
    the loops are called directly."""
    assert textutil._words_loop(text) == _WORD.findall(text)
    for token in _WORD.findall(text):
        assert textutil._identifier_parts_loop(token) == _parts(token)
    if not textutil._may_split(text):
        assert _search_terms(text) == ""


def test_a_process_without_re_splits_alike() -> None:
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from memlode import textutil\n"
        "assert 're' not in sys.modules\n"
        "print(textutil.search_terms('getUserName HTTPServer parseJSON2 x86_64 plain'))\n"
        "print(textutil.words('a_b c-d'))\n"
        "print(textutil.search_terms('Ran getÜber straßeName…'))\n"
        "assert 're' not in sys.modules\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        _search_terms("getUserName HTTPServer parseJSON2 x86_64 plain"),
        str(_WORD.findall("a_b c-d")),
        _search_terms("Ran getÜber straßeName…"),
    ]
