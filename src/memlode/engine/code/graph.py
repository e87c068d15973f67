"""Graph questions about the code that the graph library answers and no command asked until
now: the shortest path between two symbols or files, the connected components, the strongly
connected ones (dependency cycles), and the dependency layers.

The graph is the namespace's code: its files and symbols with the dependency edges (CALLS,
IMPORTS, INHERITS, EXTENDS, IMPLEMENTS) and CONTAINS (a file holds its symbols, a class its
methods). At ``level="file"`` each symbol's edges are lifted to the file that holds it, so
components, cycles and layers are of files (what a person restructures); at ``"symbol"`` they
are of the symbols themselves. A symbol or file is named as ``memlode impact`` names it: a
node id, a qualified name, a dotted tail, a bare name, or an indexed file path (or its tail).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from memlode.engine.code.repo_map import indexed_namespace
from memlode.errors import InvalidInput, NotFound
from memlode.storage import code_graph_rows
from memlode.storage.code_navigation import node_details
from memlode.types import NodeKind

if TYPE_CHECKING:
    from memlode.engine import Engine
    from memlode.graph.model import Graph

__all__ = ["LEVELS", "components", "layers", "path"]

LEVELS = ("file", "symbol")
DEPENDENCY = ("CALLS", "IMPORTS", "INHERITS", "EXTENDS", "IMPLEMENTS")
CODE_KINDS = tuple(str(k) for k in NodeKind if k is not NodeKind.MEMORY)


def _check(level: str, limit: int) -> None:
    if level not in LEVELS:
        raise InvalidInput(f"level must be one of {list(LEVELS)}, got {level!r}")
    if not 1 <= limit <= 1000:
        raise InvalidInput("limit must be between 1 and 1000")


def _load(engine: Engine, namespace: str | None) -> tuple[str, Graph]:
    from memlode.graph.store import load_graph

    ns = indexed_namespace(engine, namespace)
    graph = load_graph(
        engine.code_db, ns, relationships=(*DEPENDENCY, "CONTAINS"), kinds=CODE_KINDS
    )
    return ns, graph


def _resolve(engine: Engine, namespace: str, graph: Graph, ref: str) -> str:
    from memlode.code.navigate import find_symbols

    text = ref.strip()
    if not text:
        raise InvalidInput("give a symbol or a file")
    if text in graph:
        return text
    files = {}
    for root, rel in code_graph_rows.indexed_file_paths(engine.code_db.conn, namespace):
        node = f"file:{root.rstrip('/') + '/' if root else ''}{rel}"
        files[rel] = node if node in graph else f"file:{rel}"
    tail = "/" + text.lstrip("./")
    matches = {n for rel, n in files.items() if rel == text or ("/" in text and rel.endswith(tail))}
    if len(matches) == 1:
        return matches.pop()
    found = find_symbols(engine.code_db, namespace, text, limit=1)
    if found and found[0].node_id in graph:
        return found[0].node_id
    raise NotFound(f"no symbol or file {ref!r} in namespace {namespace!r}")


def _describe(engine: Engine, ids: Sequence[str]) -> list[dict[str, Any]]:
    details = node_details(engine.code_db.conn, list(ids))
    out = []
    for node in ids:
        name, kind, path, line = details.get(node, (node, "", "", 0))
        out.append({"node_id": node, "name": name, "kind": kind, "path": path, "line": line})
    return out


def path(
    engine: Engine,
    source: str,
    target: str,
    *,
    undirected: bool = False,
    namespace: str | None = None,
) -> dict[str, Any]:
    """One shortest chain of dependencies from ``source`` to ``target`` (each hop an edge of
    the code graph, followed forward unless ``undirected``); ``path`` empty when none."""
    from memlode.graph.traversal import shortest_path

    ns, graph = _load(engine, namespace)
    start, end = _resolve(engine, ns, graph, source), _resolve(engine, ns, graph, target)
    if start.startswith("file:") and end.startswith("file:"):
        graph = _level_graph(graph, "file")  # file to file: through what each file's code uses
    found = shortest_path(graph, start, end, directed=not undirected) or []
    kinds = {(e.source, e.target): e.relationship for e in graph.edges}
    steps = _describe(engine, found)
    for here, there in pairwise(steps):
        there["via"] = kinds.get((here["node_id"], there["node_id"])) or kinds.get(
            (there["node_id"], here["node_id"]), ""
        )
    return {
        "namespace": ns,
        "source": start,
        "target": end,
        "reachable": bool(found),
        "hops": max(0, len(found) - 1),
        "path": steps,
    }


def _level_graph(graph: Graph, level: str) -> Graph:
    """The dependency graph at ``level``: symbols as they are, or lifted to their files."""
    from memlode.graph.model import Graph as GraphType
    from memlode.graph.model import GraphEdge

    dependencies = [e for e in graph.edges if e.relationship in DEPENDENCY]
    if level == "symbol":
        symbols = [n for n in graph.nodes if not n.startswith("file:")]
        kept = set(symbols)
        return GraphType(
            symbols, [e for e in dependencies if e.source in kept and e.target in kept]
        )
    owner = {n: n for n in graph.nodes if n.startswith("file:")}
    frontier = list(owner)
    contains = [e for e in graph.edges if e.relationship == "CONTAINS"]
    while frontier:  # a file holds its symbols, a class its methods
        held = set(frontier)
        frontier = []
        for e in contains:
            if e.source in held and e.target not in owner:
                owner[e.target] = owner[e.source]
                frontier.append(e.target)
    lifted = {
        (owner[e.source], owner[e.target])
        for e in dependencies
        if e.source in owner and e.target in owner and owner[e.source] != owner[e.target]
    }
    files = sorted({n for n in owner.values()})
    return GraphType(files, [GraphEdge(a, b, "DEPENDS_ON", 1.0) for a, b in sorted(lifted)])


def components(
    engine: Engine,
    *,
    strong: bool = False,
    level: str = "file",
    limit: int = 20,
    namespace: str | None = None,
) -> dict[str, Any]:
    """Connected components of the dependency graph, largest first; ``strong``: the strongly
    connected ones of two or more members (each a dependency cycle)."""
    from memlode.graph.traversal import connected_components, strongly_connected_components

    _check(level, limit)
    ns, graph = _load(engine, namespace)
    lifted = _level_graph(graph, level)
    groups = strongly_connected_components(lifted) if strong else connected_components(lifted)
    if strong:
        groups = [g for g in groups if len(g) > 1]
    return {
        "namespace": ns,
        "level": level,
        "strong": strong,
        "total": len(groups),
        "components": [
            {"size": len(g), "members": _describe(engine, g[:50])} for g in groups[:limit]
        ],
    }


def layers(
    engine: Engine, *, level: str = "file", limit: int = 50, namespace: str | None = None
) -> dict[str, Any]:
    """Dependency layers, from what depends on nothing here (layer 0: it uses no other code of
    the project) up; a dependency cycle shares one layer."""
    from memlode.graph.traversal import topological_layers

    _check(level, limit)
    ns, graph = _load(engine, namespace)
    lifted = _level_graph(graph, level)
    from memlode.graph.model import Graph as GraphType

    # edges point from the user to what it uses; layer 0 should be what uses nothing
    reversed_graph = GraphType(
        lifted.nodes, [(e.target, e.source, e.relationship, e.weight) for e in lifted.edges]
    )
    found = topological_layers(reversed_graph)
    return {
        "namespace": ns,
        "level": level,
        "total": len(found),
        "layers": [
            {"layer": i, "size": len(members), "members": _describe(engine, members[:limit])}
            for i, members in enumerate(found)
        ],
    }
