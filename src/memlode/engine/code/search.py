"""Symbol and code search as every interface calls it: ``memlode symbols`` / ``memlode code``
and the MCP ``search_symbols`` / ``search_code`` tools rank identically, because they call these.

Lexical, vector (when the namespace's symbols are embedded: ``vectors.semantic_query``), graph
and recent-edit heat signals, fused by ``memlode.code.search``; ``search_code`` adds each
definition's source text.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.engine.code.index_state import refresh_for_read
from memlode.engine.code.repo_map import edit_heat
from memlode.errors import InvalidInput
from memlode.storage import code_graph_rows

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = ["MAX_CODE_LINES", "check_kind", "search_code", "search_symbols"]

# short enough that ten hits stay readable).
MAX_CODE_LINES = 40


def search_symbols(
    engine: Engine,
    query: str,
    *,
    kind: str | None = None,
    limit: int = 20,
    namespace: str | None = None,
    explain: bool = False,
) -> list[dict[str, Any]]:
    """Ranked symbols for a name, dotted path or question; '*' searches every namespace.

    Lexical, vector (when the namespace's symbols are embedded) and graph signals, fused by
    ``memlode.code.search``; with ``explain`` each hit says what every signal added."""
    from memlode.code import search_symbols as _search
    from memlode.engine.code.vectors import semantic_query

    if not query.strip():
        raise InvalidInput("give a symbol name or a question to search for")
    if not 1 <= limit <= 500:
        raise InvalidInput("limit must be between 1 and 500")
    kind = check_kind(kind)
    ns = engine.resolve_namespace(namespace)
    refresh_for_read(engine, ns)
    hits = _search(
        engine.code_db,
        query,
        namespace=ns,
        kind=kind,
        limit=limit,
        semantic=semantic_query(engine, query, ns),
        heat=_relative_heat(engine, ns) if ns else None,
        explain=explain,
    )
    return [hit.to_dict() for hit in hits]


def _relative_heat(engine: Engine, namespace: str) -> dict[str, float]:
    """The recent-edit heat of the namespace's indexed files, by their stored (relative) path."""
    heat = edit_heat(engine, namespace)
    if not heat:
        return {}
    out: dict[str, float] = {}
    for root in code_graph_rows.code_roots(engine.code_db.conn, namespace):
        prefix = os.path.normpath(root) + os.sep
        for path, value in heat.items():
            if path.startswith(prefix):
                rel = path[len(prefix) :].replace(os.sep, "/")
                out[rel] = out.get(rel, 0.0) + value
    return out


def check_kind(kind: str | None) -> str | None:
    """``kind`` when it names a code node kind (None for none); InvalidInput otherwise."""
    from memlode.types import NodeKind

    if kind is None or kind == "":
        return None
    allowed = {k.value for k in NodeKind} - {"memory"}
    if kind not in allowed:
        raise InvalidInput(f"unknown kind {kind!r}; one of {', '.join(sorted(allowed))}")
    return kind


def search_code(
    engine: Engine,
    query: str,
    *,
    kind: str | None = None,
    limit: int = 5,
    namespace: str | None = None,
) -> list[dict[str, Any]]:
    """Like :func:`search_symbols`, each hit with its source text (up to MAX_CODE_LINES)."""
    hits = search_symbols(engine, query, kind=kind, limit=limit, namespace=namespace)
    if not hits:
        return hits
    ids = [h["node_id"] for h in hits]
    roots = code_graph_rows.roots_of_symbols(engine.code_db.conn, ids)
    for hit in hits:
        root = roots.get(hit["node_id"])
        hit["code"], hit["code_truncated"] = (
            _source_lines(Path(root) / hit["path"], hit["line"], hit["end_line"])
            if root
            else ("", False)
        )
    return hits


def _source_lines(path: Path, start: int, end: int) -> tuple[str, bool]:
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return "", False
    end = max(end, start)
    last = min(end, start + MAX_CODE_LINES - 1)
    return "\n".join(lines[start - 1 : last]), last < end
