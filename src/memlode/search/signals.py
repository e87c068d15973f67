"""The recall signals that do not come from an index: time, tags, diversity.

Pure functions (stdlib only) so that the hook process can use them without numpy.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from memlode.textutil import words

if TYPE_CHECKING:
    from memlode.types import Memory
    from memlode.vector.index import VectorIndex

__all__ = [
    "DEFAULT_HALF_LIFE_DAYS",
    "EVERGREEN_NAMES",
    "TimeHint",
    "decay",
    "is_evergreen",
    "jaccard",
    "mmr",
    "mmr_similarity",
    "tag_match",
    "temporal_alignment",
    "time_hint",
    "token_set",
]

# DESIGN.md: decay half-life 30 days; MEMORY.md, SOUL.md and USER.md never decay.
DEFAULT_HALF_LIFE_DAYS = 30.0
EVERGREEN_NAMES = frozenset({"MEMORY.md", "SOUL.md", "USER.md"})

_MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DAY_MONTH_YEAR = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]+),?\s+(\d{4})\b")
_MONTH_DAY_YEAR = re.compile(r"\b([A-Za-z]+)\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b")
_MONTH_YEAR = re.compile(r"\b([A-Za-z]+),?\s+(\d{4})\b")
_YEAR = re.compile(r"\b(19\d{2}|20\d{2})\b")
_AGO = re.compile(r"\b(\d+|a|an|one|two|three|four|five|six)\s+(day|week|month|year)s?\s+ago\b")
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_UNIT_DAYS = {"day": 1.0, "week": 7.0, "month": 30.0, "year": 365.0}


class TimeHint:
    """A moment a query points at, with how wide a window around it counts as 'then'."""

    __slots__ = ("at", "width_days")

    def __init__(self, at: datetime, width_days: float) -> None:
        self.at = at
        self.width_days = width_days

    def __repr__(self) -> str:
        return f"TimeHint({self.at.isoformat()}, ±{self.width_days}d)"


def time_hint(query: str, now: datetime) -> TimeHint | None:
    """The time a query refers to, if it names one (a date, a month, a year, 'last week')."""
    text = query.lower()
    if m := _ISO_DATE.search(text):
        try:
            return TimeHint(now.replace(year=int(m[1]), month=int(m[2]), day=int(m[3])), 1.0)
        except ValueError:
            pass
    for pattern, order in ((_DAY_MONTH_YEAR, "dmy"), (_MONTH_DAY_YEAR, "mdy")):
        for m in pattern.finditer(text):
            day, month_name = (m[1], m[2]) if order == "dmy" else (m[2], m[1])
            month = _MONTHS.get(month_name)
            if month:
                try:
                    return TimeHint(now.replace(year=int(m[3]), month=month, day=int(day)), 1.0)
                except ValueError:
                    continue
    for m in _MONTH_YEAR.finditer(text):
        month = _MONTHS.get(m[1])
        if month:
            return TimeHint(now.replace(year=int(m[2]), month=month, day=15), 15.0)
    if "yesterday" in text:
        return TimeHint(now - timedelta(days=1), 1.0)
    if re.search(r"\btoday\b", text):
        return TimeHint(now, 1.0)
    if m := _AGO.search(text):
        count = _NUMBER_WORDS.get(m[1]) or int(m[1])
        days = count * _UNIT_DAYS[m[2]]
        return TimeHint(now - timedelta(days=days), max(1.0, days / 4))
    for unit in ("week", "month", "year"):
        if f"last {unit}" in text:
            days = _UNIT_DAYS[unit]
            return TimeHint(now - timedelta(days=days), days / 2)
    if m := _YEAR.search(text):
        return TimeHint(now.replace(year=int(m[1]), month=7, day=1), 183.0)
    return None


def temporal_alignment(created: datetime, hint: TimeHint | None) -> float:
    """1 when a memory was made at the moment the query names, falling off with distance."""
    if hint is None:
        return 0.0
    distance = abs((created - hint.at).total_seconds()) / 86400.0
    return math.exp(-distance / max(hint.width_days, 0.5))


def decay(age_days: float, half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> float:
    """Exponential decay: 1 now, 0.5 after one half-life."""
    if half_life_days <= 0:
        return 1.0
    return float(0.5 ** (max(age_days, 0.0) / half_life_days))


def is_evergreen(path: str | None, names: frozenset[str] = EVERGREEN_NAMES) -> bool:
    if not path:
        return False
    return path.replace("\\", "/").rsplit("/", 1)[-1] in names


def token_set(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in words(text))


def tag_match(query_terms: Collection[str], tags: Sequence[str]) -> float:
    """Fraction of the memory's tags that the query names (tag parts split on ':' '/' '-')."""
    if not tags or not query_terms:
        return 0.0
    terms = query_terms if isinstance(query_terms, (set, frozenset)) else set(query_terms)
    hits = 0
    for tag in tags:
        if not terms.isdisjoint(_tag_parts(tag)):
            hits += 1
    return hits / len(tags)


@functools.lru_cache(maxsize=4096)
def _tag_parts(tag: str) -> frozenset[str]:
    # Recall asks this of a few hundred candidates per query, and a store has few distinct tags.
    return frozenset(p for p in _TAG_SEPARATORS.split(tag.lower()) if p)


_TAG_SEPARATORS = re.compile(r"[:/\-_. ]+")


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def mmr(
    ids: Sequence[str],
    relevance: Sequence[float],
    similarity: Callable[[str, str], float],
    k: int,
    lambda_: float,
) -> list[str]:
    """Maximal marginal relevance: greedily pick relevant items unlike those already picked.

    ``relevance`` should be on a 0..1 scale; ``lambda_`` = 1 is pure relevance.
    """
    if lambda_ >= 1.0 or len(ids) <= 1:
        return list(ids[:k])
    remaining = list(range(len(ids)))
    chosen: list[int] = []
    best_sim = [0.0] * len(ids)
    while remaining and len(chosen) < k:
        pick = max(
            remaining,
            key=lambda i: (lambda_ * relevance[i] - (1 - lambda_) * best_sim[i], -i),
        )
        chosen.append(pick)
        remaining.remove(pick)
        for i in remaining:
            s = similarity(ids[i], ids[pick])
            if s > best_sim[i]:
                best_sim[i] = s
    return [ids[i] for i in chosen]


def mmr_similarity(
    ids: Sequence[str], memories: Mapping[str, Memory], index: VectorIndex | None
) -> Callable[[str, str], float]:
    """MMR's similarity over the window: cosine of the vectors (one product for the whole
    window), Jaccard over words for a memory without one."""
    tokens: dict[str, frozenset[str]] = {}

    def words_of(memory_id: str) -> frozenset[str]:
        found = tokens.get(memory_id)
        if found is None:
            memory = memories.get(memory_id)
            found = tokens[memory_id] = token_set(memory.content) if memory else frozenset()
        return found

    def jaccard_of(a: str, b: str) -> float:
        return jaccard(words_of(a), words_of(b))

    gram = index.gram(ids) if index is not None else None
    if gram is None:
        return jaccard_of
    matrix, have = gram
    position = {memory_id: i for i, memory_id in enumerate(ids)}

    def cosine(a: str, b: str) -> float:
        i, j = position[a], position[b]
        if not (have[i] and have[j]):
            return jaccard_of(a, b)
        return float(matrix[i, j])

    return cosine
