"""What a stated memory says of its place beside earlier ones on its subject, read from its
words: it adds to it, holds for a while only, holds in another environment, kind of build or
platform, or decides nothing (``beside``). Search (``hybrid._later_first``) and the
supersession rules (``engine.supersede_rules``) both ask it."""

from __future__ import annotations

import functools
import re

from memlode.textutil import stem, words

__all__ = ["adds", "beside", "other_scope", "scopes", "temporary", "undecided"]

# A statement whose first clause says it adds ("we now also upload", "a second worker", "metrics
# as well") sits beside what it is near, whatever its change words ("now", "switched on").
_ADDS = re.compile(r"\b(?:also|as well|in addition|additionally|a second|another|besides)\b")
_CLAUSE_END = re.compile(r"[.:!?]\s|;| - | \u2014 ")
# So does one that opens by reporting what was added ("Added a safelist in rack_attack.rb for the
# uptime monitor", "Added a go_router redirect for logged-out users"), unless that clause says
# what the addition replaces ("Added Redis for sessions instead of Memcached"). Training update
# sets A and D (session 32): five controls open so, and no case of any set.
_ADDED = re.compile(r"^(?:(?:we|i) )?add(?:ed|s)\b(?! up\b)")
_REPLACING = re.compile(
    r"\b(?:instead|replac\w*|no longer|rather than|drop\w*|remov\w*|switch\w*|migrat\w*)"
)


def adds(text: str) -> bool:
    """Whether the statement's first clause adds to its subject rather than changing it."""
    first = _CLAUSE_END.split(" ".join(text.lower().split()), maxsplit=1)[0]
    if _ADDED.search(first) is not None:
        return _REPLACING.search(first) is None
    return _ADDS.search(first) is not None


# A time-boxed exception ("For the Black Friday weekend only, free shipping starts at 30 EUR",
# "temporarily", "for the 4.1.2 hotfix only", "until Friday", "for this week's re-scoring job",
# "during the summer tournament event"): the rule it departs from stays current beside it.
_TEMPORARY = re.compile(
    r"(?:^|[.;:!?]\s+)for (?:the |this |that |one |a |our )?[\w .'/#+-]{1,48}? only\b"
    r"|\btemporar(?:y|ily)\b"
    r"|\buntil (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow"
    r"|next (?:week|month|sprint|release)|the end of (?:the )?(?:week|month|sprint|quarter|day))\b"
    r"|\bfor (?:this|the) (?:week|weekend|sprint)(?:'s)?\b|\bthis (?:week|sprint) only\b"
    r"|\bduring the [\w' -]{1,40}? (?:event|freeze|sprint|study|trial|migration|outage)\b"
)


def temporary(text: str) -> bool:
    """The statement says it holds for a while only: an exception beside its rule, not a
    replacement (training update set C, session 32: the rules linked its time-boxed exceptions
    to the rule, and search put them first)."""
    return _TEMPORARY.search(" ".join(text.lower().split())) is not None


# Where a statement holds: an environment, a kind of build, a platform, named as it opens ("Release
# builds …", "On staging, …", "In local dev, …", within SCOPE_WORDS words). A statement about one
# does not replace a statement about another ("Release builds report crashes to Crashlytics" /
# "Debug and QA builds have Crashlytics disabled": both hold). Named later, the place is a value
# the statement may change ("The API is hosted in IIS on Windows Server VMs" / "runs as a Linux
# container": training update set B).
SCOPE_WORDS = 4
_SCOPES = {
    stem(word): group
    for group, names in (
        ("production", "production prod"),
        ("staging", "staging preprod"),
        ("development", "development dev"),
        ("test", "qa uat"),
        ("debug", "debug"),
        ("release", "release"),
        ("nightly", "nightly canary"),
        ("ios", "ios iphone ipad"),
        ("android", "android"),
        ("windows", "windows"),
        ("macos", "macos mac osx"),
        ("linux", "linux"),
    )
    for word in names.split()
}


@functools.lru_cache(maxsize=4096)
def scopes(text: str) -> frozenset[str]:
    """The environments, kinds of build and platforms ``text`` opens with (``_SCOPES``); read
    once per text (the rules ask it of each earlier statement for every new one), from the
    text's first words only."""
    head = " ".join(text.split(None, 2 * SCOPE_WORDS)[: 2 * SCOPE_WORDS]).lower()
    opening = [w for w in words(head) if w != "the"][:SCOPE_WORDS]
    return frozenset(_SCOPES[s] for s in map(stem, opening) if s in _SCOPES)


def other_scope(new: str, old: str) -> bool:
    """Both name where they hold, and no place in common: two statements, both current."""
    here, there = scopes(new), scopes(old)
    return bool(here) and bool(there) and not (here & there)


# Not a decision at all: a plan still open ("we are considering …", "Lukas proposed …; nothing
# is decided yet", "we might move analytics to Firebase") or a question someone asked ("Compliance
# asked whether audit records could be exported"). Training update set D (session 32): its
# proposals and questions were read as changes of what they name.
_UNDECIDED = re.compile(
    r"\b(?:(?:we(?:'re| are)|i(?:'m| am)|team is|they(?:'re| are)) (?:considering|thinking about"
    r"|exploring|evaluating|discussing)|propos(?:ed|es|al)\b|might\b|no decision"
    r"|not (?:yet )?decided|nothing (?:is|has been) decided|(?:only|just) an idea"
    r"|asked (?:whether|if|about|why|how)\b)"
)


def undecided(text: str) -> bool:
    """The statement is a plan still open or a question asked, not a decision."""
    return _UNDECIDED.search(" ".join(text.lower().split())) is not None


def beside(new: str, old: str) -> bool:
    """The later statement ``new`` sits beside the earlier ``old`` on its subject rather than
    replacing it: it adds, holds for a while only or elsewhere, or decides nothing."""
    return adds(new) or temporary(new) or other_scope(new, old) or undecided(new)
