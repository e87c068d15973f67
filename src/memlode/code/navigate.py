"""Questions about one symbol: which is it, what does it use, what depends on it.

``find_symbols`` turns what a user typed (a node id, a qualified name, a dotted tail such as
``Session.request``, or a bare name) into symbols. ``impact`` walks the reverse of CALLS,
IMPORTS, INHERITS, EXTENDS and IMPLEMENTS edges breadth first: everything that would notice a
change, nearest first, each with its PageRank.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memlode.code.lang.spec import is_test_path
from memlode.errors import InvalidInput, NotFound
from memlode.graph.store import centrality_of
from memlode.storage import code_navigation
from memlode.storage.code_repo import CodeRepo, SymbolRow
from memlode.storage.db import Database

__all__ = [
    "DEPENDENCY_RELATIONSHIPS",
    "CentralNode",
    "ImpactHit",
    "ImpactResult",
    "SymbolDetails",
    "clusters",
    "dependencies",
    "find_symbols",
    "impact",
    "impact_of_nodes",
    "symbol_details",
    "top_central",
]

DEPENDENCY_RELATIONSHIPS = ("CALLS", "IMPORTS", "INHERITS", "EXTENDS", "IMPLEMENTS")
# Reverse edges followed per level at most: a symbol everything calls (a logger) would
# otherwise make impact analysis list the whole project.
_LEVEL_LIMIT = 2000


def find_symbols(db: Database, namespace: str, ref: str, limit: int = 20) -> list[SymbolRow]:
    """Symbols a user-given reference names, best match first (exact before suffix)."""
    text = ref.strip()
    if not text:
        raise InvalidInput("give a symbol name, a qualified name or a node id")
    repo = CodeRepo(db)
    if text.startswith("sym:"):
        return list(repo.symbols_by_node([text]).values())
    exact = repo.symbols_by_node([f"sym:{namespace}:{text}"])
    if exact:
        return list(exact.values())
    ids = code_navigation.symbols_ending(db.conn, namespace, text, limit)
    # a tail must end on a separator boundary: "Session.request", not "ession.request" (PHP
    # namespaces: "Http\Kernel")
    ids = [i for i in ids if i.endswith(tuple(f"{sep}{text}" for sep in (".", ":", "/", "\\")))]
    if not ids:
        name = text.rsplit(".", 1)[-1].rsplit(":", 1)[-1].rsplit("\\", 1)[-1]
        ids = code_navigation.symbols_named(db.conn, namespace, name, limit)
    if ids:
        found = repo.symbols_by_node(ids)
        return [found[i] for i in ids if i in found]
    return []


def _one(db: Database, namespace: str, ref: str) -> list[SymbolRow]:
    found = find_symbols(db, namespace, ref)
    if not found:
        raise NotFound(f"no symbol {ref!r} in namespace {namespace!r}; try `memlode symbols`")
    exact = [s for s in found if ref in (s.qualified_name, s.node_id)]
    return exact or found


@dataclass(frozen=True, slots=True)
class ImpactHit:
    node_id: str
    name: str
    kind: str
    path: str
    line: int
    depth: int
    relationship: str  # how it depends on the level above (CALLS, IMPORTS, ...)
    pagerank: float

    def to_dict(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__slots__}


@dataclass(slots=True)
class ImpactResult:
    targets: list[SymbolRow]
    hits: list[ImpactHit] = field(default_factory=list)
    truncated: bool = False


def impact(
    db: Database,
    namespace: str,
    symbol: str,
    *,
    depth: int = 3,
    relationships: Sequence[str] = DEPENDENCY_RELATIONSHIPS,
) -> ImpactResult:
    """What depends on ``symbol`` (and, for a class, on its members), up to ``depth`` hops."""
    if depth < 1:
        raise InvalidInput("depth must be at least 1")
    targets = _one(db, namespace, symbol)[:1]
    result = impact_of_nodes(
        db, [t.node_id for t in targets], depth=depth, relationships=relationships
    )
    result.targets = targets
    return result


def impact_of_nodes(
    db: Database,
    node_ids: Sequence[str],
    *,
    depth: int = 3,
    relationships: Sequence[str] = DEPENDENCY_RELATIONSHIPS,
) -> ImpactResult:
    """What depends on the code nodes ``node_ids`` (symbols or files; what they contain counts
    as them), up to ``depth`` hops; ``targets`` is left empty."""
    seeds = set(node_ids)
    # a class's methods and attributes count as the class
    frontier = list(seeds)
    while frontier:
        frontier = [t for t in code_navigation.contained(db.conn, frontier) if t not in seeds]
        seeds.update(frontier)
    seen: dict[str, tuple[int, str]] = {s: (0, "") for s in seeds}
    level = sorted(seeds)
    truncated = False
    for current in range(1, depth + 1):
        found: dict[str, str] = {}
        for source, rel in code_navigation.edges_into(db.conn, level, relationships):
            if source not in seen and source not in found:
                found[source] = rel
        if len(found) > _LEVEL_LIMIT:
            truncated = True
            found = dict(sorted(found.items())[:_LEVEL_LIMIT])
        for node, rel in found.items():
            seen[node] = (current, rel)
        level = sorted(found)
        if not level:
            break
    hit_ids = [n for n, (d, _) in seen.items() if d > 0]
    ranks = centrality_of(db, hit_ids)
    details = _node_details(db, hit_ids)
    hits = [
        ImpactHit(
            node_id=node,
            name=details.get(node, (node, "", "", 0))[0],
            kind=details.get(node, ("", "", "", 0))[1],
            path=details.get(node, ("", "", "", 0))[2],
            line=details.get(node, ("", "", "", 0))[3],
            depth=seen[node][0],
            relationship=seen[node][1],
            pagerank=ranks[node].pagerank if node in ranks else 0.0,
        )
        for node in hit_ids
    ]
    hits.sort(key=_impact_order)
    return ImpactResult([], hits, truncated)


# Within one hop, what a change reaches first: callers, then subclasses and implementations,
# then importers (a file that imports a name need not use it where it matters).
_RELATIONSHIP_ORDER = {"CALLS": 0, "INHERITS": 1, "EXTENDS": 1, "IMPLEMENTS": 1, "IMPORTS": 2}


def _impact_order(hit: ImpactHit) -> tuple[int, int, bool, float, str]:
    """Nearest first; in a hop, callers before importers and code before its tests, then by
    PageRank."""
    return (
        hit.depth,
        _RELATIONSHIP_ORDER.get(hit.relationship, 3),
        hit.kind == "test" or is_test_path(hit.path),
        -hit.pagerank,
        hit.node_id,
    )


def _node_details(db: Database, node_ids: Sequence[str]) -> dict[str, tuple[str, str, str, int]]:
    """(name, kind, path, line) of symbol and file nodes."""
    return code_navigation.node_details(db.conn, node_ids)


@dataclass(slots=True)
class SymbolDetails:
    symbol: SymbolRow
    pagerank: float
    callers: list[tuple[str, str, str]]  # (node id, name, relationship) of incoming edges
    callees: list[tuple[str, str, str]]  # outgoing dependency edges
    members: list[tuple[str, str, str]]  # CONTAINS children

    def to_dict(self) -> dict[str, object]:
        s = self.symbol
        return {
            "node_id": s.node_id,
            "name": s.name,
            "qualified_name": s.qualified_name,
            "kind": s.kind,
            "path": s.path,
            "line": s.line_start,
            "end_line": s.line_end,
            "signature": s.signature,
            "doc": s.doc,
            "visibility": s.visibility,
            "parent": s.parent,
            "pagerank": self.pagerank,
            "callers": [list(c) for c in self.callers],
            "callees": [list(c) for c in self.callees],
            "members": [list(c) for c in self.members],
        }


def symbol_details(db: Database, namespace: str, ref: str, limit: int = 50) -> SymbolDetails:
    """A symbol with its direct callers, callees and members."""
    sym = _one(db, namespace, ref)[0]
    conn, node = db.conn, sym.node_id
    deps = DEPENDENCY_RELATIONSHIPS
    callers = code_navigation.edges_around(
        conn, node, deps, incoming=True, by_weight=True, limit=limit
    )
    callees = code_navigation.edges_around(
        conn, node, deps, incoming=False, by_weight=True, limit=limit
    )
    members = code_navigation.edges_around(
        conn, node, ("CONTAINS",), incoming=False, by_weight=False, limit=limit
    )
    ranks = centrality_of(db, [sym.node_id])
    pr = ranks[sym.node_id].pagerank if sym.node_id in ranks else 0.0
    return SymbolDetails(sym, pr, callers, callees, members)


def dependencies(
    db: Database,
    namespace: str,
    symbol: str,
    *,
    depth: int = 1,
    relationships: Sequence[str] = DEPENDENCY_RELATIONSHIPS,
) -> ImpactResult:
    """What ``symbol`` depends on (CALLS, IMPORTS, INHERITS, ... followed forward)."""
    if depth < 1:
        raise InvalidInput("depth must be at least 1")
    targets = _one(db, namespace, symbol)[:1]
    seen: dict[str, tuple[int, str]] = {t.node_id: (0, "") for t in targets}
    level = [t.node_id for t in targets]
    for current in range(1, depth + 1):
        found: dict[str, str] = {}
        for target, rel in code_navigation.edges_from(db.conn, level, relationships):
            if target not in seen and target not in found:
                found[target] = rel
        for node, rel in found.items():
            seen[node] = (current, rel)
        level = sorted(found)[:_LEVEL_LIMIT]
        if not level:
            break
    ids = [n for n, (d, _) in seen.items() if d > 0]
    ranks = centrality_of(db, ids)
    details = _node_details(db, ids)
    hits = [
        ImpactHit(
            node_id=n,
            name=details.get(n, (n, "", "", 0))[0],
            kind=details.get(n, ("", "", "", 0))[1],
            path=details.get(n, ("", "", "", 0))[2],
            line=details.get(n, ("", "", "", 0))[3],
            depth=seen[n][0],
            relationship=seen[n][1],
            pagerank=ranks[n].pagerank if n in ranks else 0.0,
        )
        for n in ids
    ]
    hits.sort(key=lambda h: (h.depth, -h.pagerank, h.node_id))
    return ImpactResult(targets, hits)


@dataclass(frozen=True, slots=True)
class CentralNode:
    node_id: str
    name: str
    kind: str
    path: str
    pagerank: float
    betweenness: float
    degree: float
    cluster: int | None

    def to_dict(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__slots__}


def top_central(
    db: Database, namespace: str, *, kinds: Sequence[str] = (), limit: int = 20
) -> list[CentralNode]:
    """Nodes of a namespace by cached PageRank (run ``ensure_centrality`` first if stale)."""
    rows = code_navigation.top_by_pagerank(db.conn, namespace, kinds, limit)
    return [CentralNode(*r) for r in rows]


def clusters(
    db: Database, namespace: str, *, limit: int = 20, members: int = 8
) -> list[list[CentralNode]]:
    """The largest communities of a namespace's graph, each with its most central members."""
    rows = code_navigation.cluster_sizes(db.conn, namespace, limit)
    out: list[list[CentralNode]] = []
    for cluster, _size in rows:
        top = code_navigation.cluster_top(db.conn, namespace, cluster, members)
        out.append([CentralNode(*r) for r in top])
    return out
