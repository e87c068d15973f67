"""The text a code symbol is embedded from, for semantic code search.

A question about what code does ("where are redirects followed") rarely shares words with the
symbol's name, so a symbol is embedded from what describes it: its kind and name with the
identifiers split into words, its signature and doc, where it lives (path and module), the
names of what it calls and what calls it (of a class: what it holds), and a bounded slice of
its body with identifiers split as well. The idea of enriching a symbol's text before
embedding comes from Codemem's ``enrich_symbol_text``; what goes in and the bounds are ours,
chosen on the code-search evaluation's tune half (bench/code_search_eval.py). Small models
truncate (all-MiniLM-L6-v2 at 256 word pieces) and cost grows with length, so every part is
capped.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from memlode.textutil import identifier_parts

__all__ = [
    "BODY_CHARS",
    "BODY_LINES",
    "DOC_CHARS",
    "MAX_MEMBERS",
    "MAX_NEIGHBOURS",
    "body_slice",
    "split_words",
    "symbol_text",
]

# Bounds (characters, lines, names): a text of about 100-150 words, inside the model's window.
DOC_CHARS = 300
BODY_LINES = 30
BODY_CHARS = 500
MAX_NEIGHBOURS = 6
MAX_MEMBERS = 16

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NOISE = re.compile(r"[^\w\s]+")
_SPACE = re.compile(r"\s+")
# Words of every language's syntax that say nothing about what the code does.
_SYNTAX = frozenset(
    """self cls this def fn func function return returns if else elif for while in is not and
    or none null nil true false let const var pub async await try except catch finally raise
    throw new import from as with end do then""".split()
)


def split_words(text: str) -> str:
    """Identifiers in ``text`` written as their words (``getUserName`` -> ``get user name``),
    punctuation dropped, whitespace collapsed."""

    def one(match: re.Match[str]) -> str:
        word = match.group(0)
        parts = identifier_parts(word)
        return " ".join(parts) if parts else word.strip("_").lower()

    return _SPACE.sub(" ", _NOISE.sub(" ", _IDENT.sub(one, text))).strip()


def body_slice(lines: Sequence[str], start: int, end: int) -> str:
    """The first BODY_LINES lines of a definition (1-based ``start``..``end``) after its first
    line, as words without syntax, at most BODY_CHARS characters."""
    chunk = lines[start : min(end, start + BODY_LINES)]  # lines[start] is the 2nd line
    text = " ".join(w for w in split_words("\n".join(chunk)).split() if w not in _SYNTAX)
    return text if len(text) <= BODY_CHARS else text[: BODY_CHARS + 1].rsplit(" ", 1)[0]


def symbol_text(
    *,
    kind: str,
    qualified_name: str,
    signature: str,
    doc: str,
    path: str,
    module: str,
    callees: Sequence[str] = (),
    callers: Sequence[str] = (),
    members: Sequence[str] = (),
    body: str = "",
) -> str:
    """One symbol's enriched text (see the module doc); ``members`` are the names a class,
    module or type holds."""
    head, sep, rest = qualified_name.partition(":")
    if sep and head == path:  # "lib/x.ts:Name": the path is said once, below
        qualified_name = rest
    name_words = split_words(qualified_name.replace("::", " ").replace(".", " "))
    parts = [f"{kind} {name_words}"]
    if signature:
        parts.append(split_words(signature))
    if doc:
        parts.append(_SPACE.sub(" ", doc.strip())[:DOC_CHARS].rstrip("."))
    where = split_words(posixpath.splitext(path)[0].replace("/", " "))
    if module and split_words(module) not in where:
        where += " " + split_words(module)
    parts.append(f"in {where}")
    if members:
        parts.append("has " + ", ".join(split_words(n) for n in members[:MAX_MEMBERS]))
    if callees:
        parts.append("calls " + ", ".join(split_words(n) for n in callees[:MAX_NEIGHBOURS]))
    if callers:
        parts.append("called by " + ", ".join(split_words(n) for n in callers[:MAX_NEIGHBOURS]))
    if body:
        parts.append(body)
    return ". ".join(parts)
