"""A compaction summary cut along its own structure, one topic per chunk.

Claude Code's compaction summary is the densest knowledge a session leaves: numbered sections
("Errors and Fixes", "All User Messages", "Pending Tasks", ...) of bullets that each say one
thing ("BadMapError in OTEL processor config: ... Fixed by using flat ``traces_exporter``").
Cut into 180-word windows like a turn, a chunk mixes the end of one section with the start of
the next, ranks for neither, and an excerpt of it rarely shows the bullet that answers. Here
each chunk holds whole bullets of one section (a bullet keeps its sub-bullets), headed by the
section's title, so that "what fixed the BadMapError" finds the bullet that says so.

Sections that describe the state at the moment of compaction ("Pending Tasks", "Current
Work", "Optional Next Step") are marked as history: the session went on after the summary was
written, so their "still need to" is usually done by the time anyone reads it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memlode.sources.chunking import fit_words

__all__ = ["HISTORY_SECTIONS", "SECTION_WORDS", "SummaryPart", "compaction_parts"]

# Words per chunk: a few bullets of one section. Small enough that a chunk is about one thing
# (the 16 KB summaries of the replay's sessions hold bullets of 15-70 words), large enough to
# keep a bullet with its sub-bullets.
SECTION_WORDS = 90
# Titles (lower-cased, words) of the sections that state what was still to do at compaction.
HISTORY_SECTIONS = ("pending tasks", "current work", "next step")
_TITLE_WORDS = 8

# "1. Primary Request and Intent:", "3. **Task spotter-4te.1: Add ...**", "## Errors", "Analysis:"
_SECTION = re.compile(
    r"^(?:\s{0,3}\d{1,2}\.\s+(?P<numbered>\S.*)|\s{0,3}#{1,6}\s+(?P<heading>\S.*)"
    r"|(?P<label>[A-Z][A-Za-z ]{0,40}):\s*)$"
)
_BULLET = re.compile(r"^(?P<indent>\s*)(?:[-*+]|\d{1,2}[.)])\s+\S")
_BOILERPLATE = "This session is being continued from a previous conversation"


@dataclass
class SummaryPart:
    section: str  # the section's title, without its number and markup
    text: str  # "Session summary · <section>:" and the section's bullets
    history: bool  # the state at compaction time (pending tasks, current work, next step)


def compaction_parts(text: str, budget: int = SECTION_WORDS) -> list[SummaryPart]:
    """The summary as chunks of whole bullets of one section, each under its title."""
    out: list[SummaryPart] = []
    for title, body in _sections(text):
        history = any(name in title.lower() for name in HISTORY_SECTIONS)
        head = f"Session summary · {title}:" if title else "Session summary:"
        for piece in _pack(_items(body), budget):
            out.append(SummaryPart(title, f"{head}\n{piece}", history))
    return out


def _title(line: str) -> tuple[str, str]:
    """A section line's title (up to its first colon, markup removed) and the rest of it."""
    plain = line.replace("**", "").replace("__", "").strip()
    name, colon, rest = plain.partition(":")
    if not colon:
        name, rest = plain, ""
    words = name.split()
    title = " ".join(words[:_TITLE_WORDS]) + (" …" if len(words) > _TITLE_WORDS else "")
    return title.strip(), rest.strip()


def _sections(text: str) -> list[tuple[str, list[str]]]:
    """(title, lines) of each section; lines before the first section form an untitled one."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    for line in text.split("\n"):
        if line.strip().startswith(_BOILERPLATE):
            continue
        found = _SECTION.match(line)
        if found:
            title, rest = _title(found.group("numbered") or found.group("heading") or line)
            sections.append((title, [rest] if rest else []))
        else:
            sections[-1][1].append(line)
    return [(title, lines) for title, lines in sections if any(x.strip() for x in lines)]


def _items(lines: list[str]) -> list[str]:
    """The section's top-level items: a bullet at the section's smallest bullet indent, with
    the lines under it; text before the first bullet is an item of its own."""
    indents = [len(m.group("indent")) for m in map(_BULLET.match, lines) if m]
    top = min(indents) if indents else -1
    items: list[list[str]] = [[]]
    for line in lines:
        if not line.strip():
            continue
        bullet = _BULLET.match(line)
        if bullet and len(bullet.group("indent")) == top and items[-1]:
            items.append([])
        items[-1].append(line.rstrip())
    return ["\n".join(item) for item in items if item]


def _pack(items: list[str], budget: int) -> list[str]:
    """Consecutive items joined into pieces of at most ``budget`` words (an item longer than
    that is cut at line ends, and a huge line at words)."""
    pieces: list[str] = []
    cur: list[str] = []
    size = 0
    for item in items:
        for part in fit_words(item, budget):
            n = len(part.split())
            if cur and size + n > budget:
                pieces.append("\n".join(cur))
                cur, size = [], 0
            cur.append(part)
            size += n
    if cur:
        pieces.append("\n".join(cur))
    return pieces
