"""Retrieval-gated injection of memory files: the chunks worth putting into the assistant's
context for a prompt, within a character budget, or nothing at all.

A chunk is injected only if the recall score reaches the design's minimum score and the chunk
shares enough of the prompt's content words; silence is better than noise.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memlode.engine import Engine
from memlode.engine.docs import memory_search
from memlode.errors import InvalidInput
from memlode.search.fts import STOPWORDS, query_terms

__all__ = ["DEFAULT_BUDGET_CHARS", "gated_context", "render_context"]

# The injection gate. A chunk is injected only if the recall score reaches the design's minimum
# score and the chunk shares enough of the prompt's content words: at least GATE_MIN_TERMS of
# them (all of them for a one-word prompt) and either GATE_MIN_COVERAGE of them or
# GATE_ENOUGH_TERMS outright (long prompts rarely share a quarter of their words with a note).
GATE_MIN_SCORE = 0.1
GATE_MIN_TERMS = 2
GATE_MIN_COVERAGE = 0.25
GATE_ENOUGH_TERMS = 4
DEFAULT_BUDGET_CHARS = 2000
# A chunk that does not fit is cut to the remaining budget only if this much room is left.
_MIN_PARTIAL_CHARS = 200

_SUFFIXES = ("ing", "ed", "es", "s")


def _stem(term: str) -> str:
    """A light stem so that 'tests'/'testing' meet 'test' (the FTS side uses porter)."""
    for suffix in _SUFFIXES:
        if term.endswith(suffix) and len(term) - len(suffix) >= 3:
            return term[: -len(suffix)]
    return term


def _term_set(text: str) -> set[str]:
    return {_stem(t) for t in query_terms(text, drop_stopwords=False)}


def gated_context(
    engine: Engine,
    prompt: str,
    budget_chars: int = DEFAULT_BUDGET_CHARS,
    *,
    k: int = 5,
    min_score: float = GATE_MIN_SCORE,
    cwd: Path | None = None,
) -> list[dict[str, Any]]:
    """The memory-file chunks worth injecting for ``prompt``, best first, within a budget.

    Nothing is returned unless a chunk passes the gate (score and term overlap, see the
    constants above); an empty prompt or one with no content words returns nothing.
    """
    if not isinstance(prompt, str) or budget_chars <= 0:
        return []
    wanted = {
        _stem(t)
        for t in query_terms(prompt, drop_stopwords=False)
        if len(t) > 1 and t not in STOPWORDS
    }
    if not wanted:
        return []
    try:
        found = memory_search(engine, prompt, k, cwd=cwd)["results"]
    except InvalidInput:
        return []
    out: list[dict[str, Any]] = []
    room = budget_chars
    needed = min(GATE_MIN_TERMS, len(wanted))
    for item in found:
        if item["score"] < min_score:
            continue
        matched = wanted & _term_set(item["text"])
        coverage = len(matched) / len(wanted)
        if len(matched) < needed or (
            coverage < GATE_MIN_COVERAGE and len(matched) < GATE_ENOUGH_TERMS
        ):
            continue
        text: str = item["text"]
        if len(text) > room:
            if room < _MIN_PARTIAL_CHARS:
                break
            text = text[: room - 1].rsplit(None, 1)[0] + "…"
        out.append(item | {"text": text, "matched_terms": sorted(matched)})
        room -= len(text)
        if room <= 0:
            break
    return out


def render_context(items: Sequence[dict[str, Any]], title: str = "Relevant memory files") -> str:
    """The injected text for ``gated_context`` items ('' when there are none)."""
    if not items:
        return ""
    parts = [f"## {title}"]
    for item in items:
        source = item.get("ref") or item.get("file") or item.get("path") or "?"
        parts.append(f"From {source}:\n{item['text']}")
    return "\n\n".join(parts)
