"""What a stated memory says of its place beside earlier ones on its subject, read from its
words: search (``hybrid._later_first``) and the supersession rules (``engine.supersession``)
both ask it."""

from __future__ import annotations

import re

__all__ = ["adds"]

# A statement whose first clause says it adds ("we now also upload", "a second worker", "metrics
# as well") sits beside what it is near, whatever its change words ("now", "switched on").
_ADDS = re.compile(r"\b(?:also|as well|in addition|additionally|a second|another|besides)\b")
_CLAUSE_END = re.compile(r"[.:!?]\s|;| - | \u2014 ")


def adds(text: str) -> bool:
    """Whether the statement's first clause adds to its subject rather than changing it."""
    first = _CLAUSE_END.split(" ".join(text.lower().split()), maxsplit=1)[0]
    return _ADDS.search(first) is not None
