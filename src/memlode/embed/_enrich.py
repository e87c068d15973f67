"""Contextual enrichment: a one-line header of what a memory is, prepended before embedding.

"Use RS256" means little alone; "[decision | ns: api | tags: auth, jwt] Use RS256" lands next
to the other auth decisions of that project. The header only shapes the vector: callers embed
the enriched text and store the original.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["MAX_RELATIONSHIPS", "enrich"]

# More than a handful of edges turns the header into the text; 8 keeps it a header.
MAX_RELATIONSHIPS = 8
# Brackets, pipes and line breaks would break the header's own syntax.
_UNSAFE = re.compile(r"[\[\]|\r\n]+")
_SPACES = re.compile(r"\s+")


def _clean(value: object) -> str:
    text = _UNSAFE.sub(" ", str(value))
    return _SPACES.sub(" ", text).strip()


def enrich(
    text: str,
    memory_type: str | None = None,
    namespace: str | None = None,
    tags: Iterable[str] = (),
    relationships: Iterable[tuple[str, str]] = (),
) -> str:
    """Return ``text`` with a header such as
    ``[decision | ns: myproj | tags: auth, jwt | rel: EVOLVED_INTO auth.py; CALLS login]``
    and a newline in front. ``relationships`` are (type, target) pairs, at most
    ``MAX_RELATIONSHIPS`` used. Enum members (``MemoryType``, ``Relationship``) work as their
    values. With nothing to say, ``text`` comes back unchanged.
    """
    parts: list[str] = []
    kind = _clean(memory_type) if memory_type is not None else ""
    if kind:
        parts.append(kind)
    ns = _clean(namespace) if namespace is not None else ""
    if ns:
        parts.append(f"ns: {ns}")
    clean_tags = list(dict.fromkeys(t for t in (_clean(tag) for tag in tags) if t))
    if clean_tags:
        parts.append("tags: " + ", ".join(clean_tags))
    rels: list[str] = []
    for rel_type, target in relationships:
        if len(rels) == MAX_RELATIONSHIPS:
            break
        rel = " ".join(p for p in (_clean(rel_type), _clean(target).replace(";", ",")) if p)
        if rel:
            rels.append(rel)
    if rels:
        parts.append("rel: " + "; ".join(rels))
    if not parts:
        return text
    return "[" + " | ".join(parts) + "]\n" + text
