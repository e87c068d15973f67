"""What a stated memory says of its place beside earlier ones on its subject, read from its
words: it adds to it, holds for a while only, holds in another environment, kind of build or
platform, or decides nothing (``beside``). Search (``hybrid._later_first``) and the
supersession rules (``engine.supersede_rules``) both ask it."""

from __future__ import annotations

import functools
import re

from memlode.storage.capture import ANSWER_LINE
from memlode.storage.supersession import SITTING_SECONDS
from memlode.textutil import stem, words
from memlode.types import parse_ts

__all__ = [
    "adds",
    "beside",
    "other_scope",
    "scopes",
    "sittings_apart",
    "temporary",
    "undecided",
]

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


# A statement labelled as a detail of its subject or as a reminder of a rule ("KenCarp4 PI
# controller detail: …", "Reminder for doc writers: …", "Review reminder: …") adds to what it is
# near or says it again. Training update set F (session 33): three details and three reminders
# among its controls, none among the cases of any set. Not "details" ("Migration details: we
# moved sessions to Memcached" tells the change in full).
_LABELLED_BESIDE = re.compile(r"\b(?:detail|reminders?)$|^reminder\b")


@functools.lru_cache(maxsize=4096)
def _flat(text: str) -> str:
    """``text`` lower-cased on one line, its spaces collapsed: read once per text (search and
    the rules ask several readings of one statement against each of its neighbours)."""
    return " ".join(text.lower().split())


def _label(flat: str) -> str:
    """What a statement is labelled as it opens ("Review reminder", "Idea" of "Idea: …"), or
    ''."""
    return flat.split(": ", 1)[0].rstrip(" )") if ": " in flat[:60] else ""


def adds(text: str) -> bool:
    """Whether the statement's first clause adds to its subject rather than changing it."""
    flat = _flat(text)
    first = _CLAUSE_END.split(flat, maxsplit=1)[0]
    if _ADDED.search(first) is not None:
        return _REPLACING.search(first) is None
    if _LABELLED_BESIDE.search(_label(flat)) is not None:
        return True
    return _ADDS.search(first) is not None


_MONTH = (
    r"(?:jan|january|feb|february|mar|march|apr|april|may|jun|june|jul|july|aug|august|sep"
    r"|sept|september|oct|october|nov|november|dec|december)\b\.?"
)
# A time-boxed exception ("For the Black Friday weekend only, free shipping starts at 30 EUR",
# "temporarily", "for the 4.1.2 hotfix only", "until Friday", "for this week's re-scoring job",
# "during the summer tournament event"): the rule it departs from stays current beside it.
_TEMPORARY = re.compile(
    r"(?:^|[.;:!?]\s+)for (?:the |this |that |one |a |our )?[\w .'/#+-]{1,48}? only\b"
    r"|\btemporar(?:y|ily)\b"
    r"|\b(?:until|till|through|thru) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|tomorrow|next (?:week|month|sprint|release)|the end of (?:the )?(?:week|month|sprint|quarter"
    r"|day))\b"
    r"|\bfor (?:this|the) (?:week|weekend|sprint)(?:'s)?\b|\bthis (?:week|sprint) only\b"
    r"|\bduring the [\w' -]{1,40}? (?:event|freeze|sprint|study|trial|migration|outage)\b"
    # a span of dates ("(Jan 1-14)", "Nov 25 - Dec 1") or the rule's return ("the limit is back
    # on Jan 15", "the normal freeze applies again afterwards"): training update set F
    r"|\b" + _MONTH + r" \d{1,2} ?(?:-|\u2013|to) ?(?:" + _MONTH + r" )?\d{1,2}\b"
    r"|\b(?:is|are) back (?:on|from|after) " + _MONTH + r"\b|\bapplies again\b|\bback to normal\b"
)


def temporary(text: str) -> bool:
    """The statement says it holds for a while only: an exception beside its rule, not a
    replacement (training update set C, session 32: the rules linked its time-boxed exceptions
    to the rule, and search put them first)."""
    return _TEMPORARY.search(_flat(text)) is not None


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
    r"|asked (?:whether|if|about|why|how)\b"
    # a question left open ("Nobody has benchmarked that yet", "Haven't checked", "parked for
    # now", "not agreed"): training update set F (session 33)
    r"|not (?:yet )?(?:agreed|answered)|nothing (?:is |has been )?agreed|\bopen question\b"
    r"|\bparked\b|nobody has \w+ (?:it|that|this) yet|haven't (?:checked|decided|tried))"
)
# ... or one labelled so as it opens ("Idea: …", "Paul's idea: …", "Question from Discourse: …",
# "Someone asked in #eng: …", "Proposal (not agreed): …"); a user's answer to the assistant's
# question ("Q: …" then "A (user): …", memlode.hooks.extract) is a decision.
_UNDECIDED_LABEL = re.compile(r"\b(?:idea|ideas|question|questions|q|asked|proposal|rfc)\b")


# ... or one that opens by asking a yes-or-no question ("Does anyone know if the IO manager
# should write Delta instead of Parquet? Asking for Priya.", "Should we move to Kamal?") that
# the statement does not answer ("Yes, …", "No, …"). A question answered in the same breath
# ("Where do drafts live? In a single SQLite file …", training set E) is a statement.
_ASKING = frozenset(
    "does do did should shall can could would will is are was were has have anyone".split()
)


def _asks_open(flat: str) -> bool:
    question, mark, rest = flat.partition("? ")
    if not mark and flat.endswith("?"):
        question, rest = flat[:-1], ""
    elif not mark:
        return False
    opening = question.split(" ", 1)[0].strip("\"'(")
    return opening in _ASKING and not rest.startswith(("yes", "no,", "no.", "no ", "nope"))


def undecided(text: str) -> bool:
    """The statement is a plan still open or a question asked, not a decision."""
    flat = _flat(text)
    if _UNDECIDED.search(flat) is not None or _asks_open(flat):
        return True
    answered = "\n" + ANSWER_LINE.lower() in text.lower()
    return _UNDECIDED_LABEL.search(_label(flat)) is not None and not answered


def beside(new: str, old: str) -> bool:
    """The later statement ``new`` sits beside the earlier ``old`` on its subject rather than
    replacing it: it adds, holds for a while only or elsewhere, or decides nothing."""
    return adds(new) or temporary(new) or other_scope(new, old) or undecided(new)


def sittings_apart(earlier_at: str, later_at: str) -> bool:
    """Whether a statement stored at ``earlier_at`` was made ``SITTING_SECONDS`` or more before
    one stored at ``later_at`` (``storage.supersession.SITTING_SECONDS``: statements of one
    sitting are parts of one account). Times that do not parse are compared as text."""
    try:
        gap = parse_ts(later_at) - parse_ts(earlier_at)
    except ValueError:
        return earlier_at < later_at
    return gap.total_seconds() >= SITTING_SECONDS
