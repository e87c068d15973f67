"""Centrality and communities of a namespace's graph (code and memory nodes alike: recall's
graph signal reads the memory ones): recomputed on demand, the most central nodes by PageRank,
the largest communities with their most central members. The cache is rebuilt first when stale
(``index_state.refresh``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.engine.code.repo_map import one_namespace
from memlode.engine.code.search import check_kind
from memlode.errors import InvalidInput, NotFound
from memlode.storage import code_graph_rows

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = ["clusters", "pagerank", "recompute"]


def recompute(
    engine: Engine, *, namespace: str | None = None, method: str = "leiden"
) -> dict[str, Any]:
    """Recompute and cache PageRank, betweenness, degree and community of every node of the
    namespace (code and memory nodes alike: recall's graph signal reads the memory ones)."""
    from memlode.engine.code.index_state import refresh

    if method not in ("leiden", "louvain"):
        raise InvalidInput("method must be 'leiden' or 'louvain'")
    ns = one_namespace(engine, namespace)
    run = refresh(engine, ns, force=True, method=method)
    assert run is not None  # forced
    kinds = code_graph_rows.centrality_by_kind(engine.code_db.conn, ns)
    return {
        "namespace": ns,
        "nodes": run.nodes,
        "edges": run.edges,
        "communities": run.communities,
        "memory_nodes": int(kinds.get("memory", 0)),
        "kinds": kinds,
        "method": method,
        "seconds": round(run.seconds, 3),
    }


def _fresh_namespace(engine: Engine, namespace: str | None) -> str:
    from memlode.engine.code.index_state import refresh

    ns = one_namespace(engine, namespace)
    if not code_graph_rows.has_graph(engine.code_db.conn, ns):
        raise NotFound(
            f"namespace {ns!r} has no graph yet; run `memlode index` or link memories first"
        )
    refresh(engine, ns, full=True)
    return ns


def pagerank(
    engine: Engine, *, kind: str | None = None, limit: int = 20, namespace: str | None = None
) -> list[dict[str, Any]]:
    """The namespace's most central nodes by PageRank (the cache is refreshed if stale)."""
    from memlode.code import top_central

    if not 1 <= limit <= 1000:
        raise InvalidInput("limit must be between 1 and 1000")
    if kind is not None and kind != "memory":
        kind = check_kind(kind)
    ns = _fresh_namespace(engine, namespace)
    nodes = top_central(engine.code_db, ns, kinds=(kind,) if kind else (), limit=limit)
    return [n.to_dict() for n in nodes]


def clusters(
    engine: Engine, *, limit: int = 20, members: int = 8, namespace: str | None = None
) -> list[dict[str, Any]]:
    """The largest communities of the namespace's graph, each with its most central members."""
    from memlode.code import clusters as _clusters

    if not 1 <= limit <= 500 or not 1 <= members <= 100:
        raise InvalidInput("limit must be 1-500 and members 1-100")
    ns = _fresh_namespace(engine, namespace)
    sizes = code_graph_rows.centrality_by_cluster(engine.code_db.conn, ns)
    out: list[dict[str, Any]] = []
    for group in _clusters(engine.code_db, ns, limit=limit, members=members):
        if not group:
            continue
        cluster = group[0].cluster
        out.append(
            {
                "cluster": cluster,
                "size": int(sizes.get(cluster, len(group))),
                "members": [n.to_dict() for n in group],
            }
        )
    return out
