"""Recall with impact: the memories a query finds, each with the code it is about and what
depends on that code.

A hit names code in three ways: the file a hook observed (``metadata["file"]``), the symbols
an edit touched (``metadata["diff"]["symbols"]``), and paths written in its text ("Edited
app/billing.py: ..."). Each is resolved against the namespace's code index (a file by its
absolute path or a path tail, a symbol as ``memlode impact`` resolves it) and walked like
``memlode impact``: the reverse CALLS/IMPORTS/INHERITS/... edges, nearest first. The MCP tool
``recall_with_impact`` is this function; without a code index the hits come back alone.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Any

from memlode.errors import InvalidInput
from memlode.storage import code_graph_rows
from memlode.storage.store_stats import has_indexed_code

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memlode.engine import Engine

__all__ = ["recall_with_impact"]

REFS_PER_HIT = 4  # code a hit is about, at most
DEPENDENTS_PER_REF = 15  # what depends on each, nearest first
# a path written in a memory's text: at least one folder or a file name with an extension
_PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][\w]{0,5})(?![\w/])")


def recall_with_impact(
    engine: Engine,
    query: str,
    k: int = 5,
    *,
    depth: int = 2,
    namespace: str | None = None,
    memory_types: Sequence[str] | None = None,
    tags: Sequence[str] | None = None,
    sources: Sequence[str] = (),
) -> dict[str, Any]:
    """The hits of ``query`` (as ``Engine.search``), each with ``code``: the files and
    symbols it is about and what depends on them up to ``depth`` hops."""
    if not 1 <= depth <= 5:
        raise InvalidInput("depth must be between 1 and 5")
    hits = engine.search(
        query, k, namespace=namespace, memory_types=memory_types, tags=tags, sources=sources
    )
    ns = engine.resolve_namespace(namespace)
    indexed = ns is not None and has_indexed_code(engine.code_db.conn, ns)
    files = _indexed_files(engine, ns) if indexed and ns is not None else {}
    out_hits = []
    affected: set[str] = set()
    for hit in hits:
        item = hit.to_dict()
        item["code"] = []
        if indexed and ns is not None:
            for node_id in _refs(engine, ns, hit.memory.content, hit.memory.metadata, files):
                entry = _impact_of(engine, node_id, depth)
                affected.update(d["path"] for d in entry["dependents"] if d["path"])
                item["code"].append(entry)
        out_hits.append(item)
    return {
        "query": query,
        "namespace": ns,
        "code_indexed": indexed,
        "hits": out_hits,
        "files_affected": sorted(affected),
    }


def _indexed_files(engine: Engine, namespace: str) -> dict[str, str]:
    """Indexed path (relative, and absolute) -> file node id."""
    out: dict[str, str] = {}
    for root, path in code_graph_rows.indexed_file_paths(engine.code_db.conn, namespace):
        node = f"file:{posixpath.join(root, path)}"
        out[path] = node
        out[posixpath.join(root, path)] = node
    return out


def _refs(
    engine: Engine, namespace: str, content: str, metadata: Any, files: dict[str, str]
) -> list[str]:
    from memlode.code.navigate import find_symbols

    found: list[str] = []
    meta = metadata if isinstance(metadata, dict) else {}
    mentioned = [meta["file"]] if isinstance(meta.get("file"), str) else []
    mentioned += _PATH.findall(content)
    for mention in mentioned:
        node = files.get(mention) or _by_tail(files, mention)
        if node is not None and node not in found:
            found.append(node)
    diff = meta.get("diff")
    names = diff.get("symbols") if isinstance(diff, dict) else None
    for name in names if isinstance(names, list) else []:
        if isinstance(name, str) and name.strip():
            symbols = find_symbols(engine.code_db, namespace, name, limit=1)
            if symbols and symbols[0].node_id not in found:
                found.append(symbols[0].node_id)
    return found[:REFS_PER_HIT]


def _by_tail(files: dict[str, str], mention: str) -> str | None:
    if "/" not in mention:
        return None  # a bare file name is too ambiguous to resolve
    tail = "/" + mention.lstrip("./")
    matches = {node for path, node in files.items() if path.endswith(tail)}
    return matches.pop() if len(matches) == 1 else None


def _impact_of(engine: Engine, node_id: str, depth: int) -> dict[str, Any]:
    from memlode.code.navigate import impact_of_nodes
    from memlode.storage.code_navigation import node_details

    name, kind, path, line = node_details(engine.code_db.conn, [node_id]).get(
        node_id, (node_id, "", "", 0)
    )
    walked = impact_of_nodes(engine.code_db, [node_id], depth=depth)
    return {
        "ref": node_id,
        "name": name,
        "kind": kind,
        "path": path,
        "line": line,
        "dependents": [h.to_dict() for h in walked.hits[:DEPENDENTS_PER_REF]],
        "more": max(0, len(walked.hits) - DEPENDENTS_PER_REF),
        "truncated": bool(walked.truncated),
    }
