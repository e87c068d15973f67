"""How central a node is: degree, PageRank (plain and personalised), betweenness.

Scores come back as ``{node id: score}``; :func:`ranked` orders them (score, then id) so that
ties never depend on dictionary or hash order.
"""

from __future__ import annotations

from collections.abc import Mapping

from memlode.errors import InvalidInput
from memlode.graph.model import Direction, Graph

__all__ = [
    "DAMPING",
    "betweenness",
    "degree_centrality",
    "pagerank",
    "personalized_pagerank",
    "ranked",
]

# The damping factor of the original PageRank paper (and of networkx and igraph defaults).
DAMPING = 0.85


def ranked(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    """Highest score first; equal scores by id."""
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def degree_centrality(graph: Graph, *, direction: Direction = "both") -> dict[str, float]:
    """Edges at each node divided by ``n - 1`` (the networkx convention)."""
    n = len(graph.nodes)
    if n == 0:
        return {}
    mode = {"out": "out", "in": "in", "both": "all"}[direction]
    degrees = graph.igraph().degree(mode=mode, loops=False)
    scale = 1.0 / (n - 1) if n > 1 else 1.0
    return {node: degrees[i] * scale for i, node in enumerate(graph.nodes)}


def pagerank(
    graph: Graph,
    *,
    damping: float = DAMPING,
    weighted: bool = True,
    personalization: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """PageRank over directed edges (weights as strengths); sums to 1.

    ``personalization`` gives the teleport distribution (node -> non-negative weight); nodes
    it leaves out get none. Without it, every node is equally likely.
    """
    n = len(graph.nodes)
    if n == 0:
        return {}
    if not 0 < damping < 1:
        raise InvalidInput(f"damping must be between 0 and 1, not {damping}")
    ig = graph.igraph()
    weights = "weight" if weighted and graph.edges else None
    if personalization:
        reset = [0.0] * n
        for node, value in personalization.items():
            if value < 0:
                raise InvalidInput(f"personalization weight of {node!r} is negative")
            if node in graph.index:
                reset[graph.index[node]] = float(value)
        if sum(reset) <= 0:
            raise InvalidInput("personalization names no node of the graph with a weight > 0")
        scores = ig.personalized_pagerank(
            directed=True, damping=damping, reset=reset, weights=weights
        )
    else:
        scores = ig.pagerank(directed=True, damping=damping, weights=weights)
    return {node: float(scores[i]) for i, node in enumerate(graph.nodes)}


def personalized_pagerank(
    graph: Graph, seeds: Mapping[str, float], *, damping: float = DAMPING, weighted: bool = True
) -> dict[str, float]:
    """PageRank that teleports only to ``seeds`` (in proportion to their weights)."""
    return pagerank(graph, damping=damping, weighted=weighted, personalization=seeds)


def betweenness(
    graph: Graph, *, directed: bool = True, normalized: bool = True, cutoff: int | None = None
) -> dict[str, float]:
    """Shortest-path betweenness (edges count one each).

    ``normalized`` divides by the number of ordered pairs ``(n-1)(n-2)`` (directed) or
    unordered pairs (undirected), giving values in [0, 1]. ``cutoff`` only counts paths up to
    that length: much faster on large graphs, exact on graphs with a smaller diameter.
    """
    n = len(graph.nodes)
    if n == 0:
        return {}
    ig = graph.igraph()
    values = ig.betweenness(directed=directed, cutoff=cutoff)
    scale = 1.0
    if normalized and n > 2:
        pairs = (n - 1) * (n - 2)
        scale = 1.0 / (pairs if directed else pairs / 2)
    return {node: float(values[i]) * scale for i, node in enumerate(graph.nodes)}
