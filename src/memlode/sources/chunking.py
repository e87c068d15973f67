"""Cutting text into chunks of a word budget: markdown paragraphs kept whole where they fit
(code fences whole, a heading with what follows it), long units cut at line ends and a huge
line at words, later chunks headed by what the text is about and the tail of the chunk before.
Used for transcript turns (``memlode.sources.turns``) and compaction summaries
(``memlode.sources.compaction``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "CHUNK_WORDS",
    "HEADER_WORDS",
    "OVERLAP_RATIO",
    "chunk_text",
    "clip_words",
    "fit_words",
    "markdown_units",
    "merge_ids",
]

# The default local embedder reads 256 word pieces. English prose averages about 1.4 pieces per
# word, so 180 words fill that window; coding sessions average 3.2 (paths, hashes and command
# output split into many pieces), so most turn chunks run past it: their vector is of their
# first 256 pieces, while BM25 reads all of them. Chunks of 90 words, which fit, answered fewer
# of the session replay's prompts (bench/RESULTS.md, session 25).
CHUNK_WORDS = 180
# Each sub-chunk repeats the last ~15% of the previous one, so that a sentence cut at a
# boundary is whole in at least one chunk.
OVERLAP_RATIO = 0.15
# How much of a turn's prompt heads each later sub-chunk of it.
HEADER_WORDS = 12


def clip_words(text: str, words: int) -> str:
    """``text`` on one line, its first ``words`` words, " …" when cut."""
    parts = text.split()
    flat = " ".join(parts[:words])
    return flat + " …" if len(parts) > words else flat


_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")


def markdown_units(text: str) -> list[str]:
    """Split markdown into paragraphs, keeping code fences whole and headings as breaks.

    A heading stays with what follows it, so that no chunk ends on a bare heading.
    """
    units: list[str] = []
    buf: list[str] = []
    in_fence = False

    def heading_only() -> bool:
        lines = [line for line in buf if line.strip()]
        return bool(lines) and all(_HEADING.match(line) for line in lines)

    def flush() -> None:
        if buf and any(line.strip() for line in buf):
            units.append("\n".join(buf).strip("\n"))
        buf.clear()

    for line in text.split("\n"):
        if _FENCE.match(line):
            if not in_fence:
                if not heading_only():
                    flush()
                in_fence = True
                buf.append(line)
                continue
            buf.append(line)
            in_fence = False
            flush()
            continue
        if in_fence:
            buf.append(line)
            continue
        if _HEADING.match(line) or (not line.strip() and not heading_only()):
            flush()
        if line.strip():
            buf.append(line)
        elif buf:
            buf.append("")  # the blank line after a heading
    flush()
    return units


def fit_words(unit: str, budget: int) -> list[str]:
    """Cut a unit longer than ``budget`` words at line ends, and at words when a line is huge."""
    if len(unit.split()) <= budget:
        return [unit]
    out: list[str] = []
    cur: list[str] = []
    size = 0
    for line in unit.split("\n"):
        n = len(line.split())
        if n > budget:
            if cur:
                out.append("\n".join(cur))
                cur, size = [], 0
            words = line.split()
            out.extend(" ".join(words[i : i + budget]) for i in range(0, len(words), budget))
            continue
        if size + n > budget and cur:
            out.append("\n".join(cur))
            cur, size = [], 0
        cur.append(line)
        size += n
    if cur:
        out.append("\n".join(cur))
    return out


def chunk_text(
    pieces: Iterable[tuple[str, list[str]]],
    *,
    budget: int = CHUNK_WORDS,
    overlap: float = OVERLAP_RATIO,
    header: str = "",
) -> list[tuple[str, list[str]]]:
    """Pack (text, uuids) pieces into chunks of at most ``budget`` words.

    One chunk when everything fits. Otherwise each chunk after the first starts with
    ``header`` (what the turn was about) and the last ``overlap`` share of the previous chunk.
    """
    units: list[tuple[str, list[str]]] = []
    for text, uuids in pieces:
        for unit in markdown_units(text):
            units.extend((part, uuids) for part in fit_words(unit, budget))
    if not units:
        return []
    if sum(len(u.split()) for u, _ in units) <= budget:
        return [("\n\n".join(u for u, _ in units), merge_ids(u for _, u in units))]
    carry_words = max(1, int(budget * overlap))
    head = f"({clip_words(header, HEADER_WORDS)})" if header else ""
    # what precedes each later body: the header, "…", and the carried words
    lead_words = len(head.split()) + 1 + carry_words
    body_budget = max(budget - lead_words, budget // 2)
    bodies: list[tuple[list[str], list[str]]] = []
    cur: list[str] = []
    cur_uuids: list[str] = []
    size = 0
    for unit, uuids in units:
        for part in fit_words(unit, body_budget):
            n = len(part.split())
            if size + n > body_budget and cur:
                bodies.append((cur, cur_uuids))
                cur, cur_uuids, size = [], [], 0
            cur.append(part)
            cur_uuids = merge_ids([cur_uuids, uuids])
            size += n
    if cur:
        bodies.append((cur, cur_uuids))
    chunks: list[tuple[str, list[str]]] = []
    prev_tail = ""
    for i, (parts, uuids) in enumerate(bodies):
        body = "\n\n".join(parts)
        lead: list[str] = []
        if i > 0:
            if head:
                lead.append(head)
            lead.append("… " + prev_tail)
        chunks.append(("\n\n".join([*lead, body]), uuids))
        prev_tail = " ".join(body.split()[-carry_words:])
    return chunks


def merge_ids(lists: Iterable[list[str]]) -> list[str]:
    out: dict[str, None] = {}
    for items in lists:
        for item in items:
            out[item] = None
    return list(out)
