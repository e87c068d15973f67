"""Walking a graph: BFS, DFS, shortest paths, components, topological layers, expansion.

Every result is deterministic: neighbours are visited in id order and groups are listed
largest first, then by their smallest id.
"""

from __future__ import annotations

import warnings
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memlode.graph.model import Direction, Graph

__all__ = [
    "Neighbor",
    "bfs",
    "connected_components",
    "dfs",
    "expand",
    "neighbors",
    "shortest_path",
    "strongly_connected_components",
    "topological_layers",
]


def bfs(
    graph: Graph, start: str, *, direction: Direction = "out", max_depth: int | None = None
) -> list[tuple[str, int]]:
    """Nodes reachable from ``start`` in breadth-first order, with their depth."""
    adj = graph.adjacency(direction)
    first = graph.require(start)
    depth = {first: 0}
    order = [first]
    queue = deque([first])
    while queue:
        current = queue.popleft()
        if max_depth is not None and depth[current] >= max_depth:
            continue
        for nxt in adj[current]:
            if nxt not in depth:
                depth[nxt] = depth[current] + 1
                order.append(nxt)
                queue.append(nxt)
    return [(graph.nodes[i], depth[i]) for i in order]


def dfs(graph: Graph, start: str, *, direction: Direction = "out") -> list[str]:
    """Nodes reachable from ``start`` in depth-first preorder (iterative, no recursion limit)."""
    adj = graph.adjacency(direction)
    seen: set[int] = set()
    order: list[int] = []
    stack = [graph.require(start)]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        order.append(current)
        stack.extend(n for n in reversed(adj[current]) if n not in seen)
    return [graph.nodes[i] for i in order]


def shortest_path(
    graph: Graph, source: str, target: str, *, directed: bool = True, weighted: bool = False
) -> list[str] | None:
    """One shortest path from ``source`` to ``target`` (node ids), or None if unreachable.

    ``weighted`` treats edge weights as lengths; by default every edge counts one.
    """
    s, t = graph.require(source), graph.require(target)
    if s == t:
        return [source]
    ig = graph.igraph()
    with warnings.catch_warnings():
        # igraph warns "Couldn't reach some vertices" for an unreachable target: a None here
        warnings.simplefilter("ignore", RuntimeWarning)
        paths = ig.get_shortest_paths(
            s, to=t, weights="weight" if weighted else None, mode="out" if directed else "all"
        )
    path = paths[0] if paths else []
    if not path or path[-1] != t:
        return None
    return [graph.nodes[i] for i in path]


def _groups(graph: Graph, membership: Sequence[int]) -> list[list[str]]:
    groups: dict[int, list[str]] = {}
    for i, label in enumerate(membership):
        groups.setdefault(label, []).append(graph.nodes[i])
    return sorted(groups.values(), key=lambda g: (-len(g), g[0]))


def connected_components(graph: Graph) -> list[list[str]]:
    """Weakly connected components, largest first."""
    if not graph.nodes:
        return []
    return _groups(graph, graph.igraph().connected_components(mode="weak").membership)


def strongly_connected_components(graph: Graph) -> list[list[str]]:
    """Strongly connected components (cycles collapse into one), largest first."""
    if not graph.nodes:
        return []
    return _groups(graph, graph.igraph().connected_components(mode="strong").membership)


def topological_layers(graph: Graph) -> list[list[str]]:
    """Layers of a dependency order: layer 0 has no incoming edges, each later layer depends
    only on earlier ones. Nodes of a cycle share a layer (the graph is condensed first)."""
    if not graph.nodes:
        return []
    membership = graph.igraph().connected_components(mode="strong").membership
    count = max(membership) + 1
    succ: list[set[int]] = [set() for _ in range(count)]
    indeg = [0] * count
    for e in graph.edges:
        a, b = membership[graph.index[e.source]], membership[graph.index[e.target]]
        if a != b and b not in succ[a]:
            succ[a].add(b)
            indeg[b] += 1
    level = [0] * count
    ready = deque(c for c in range(count) if indeg[c] == 0)
    while ready:
        current = ready.popleft()
        for nxt in succ[current]:
            level[nxt] = max(level[nxt], level[current] + 1)
            indeg[nxt] -= 1
            if indeg[nxt] == 0:
                ready.append(nxt)
    layers: dict[int, list[str]] = {}
    for i, node in enumerate(graph.nodes):
        layers.setdefault(level[membership[i]], []).append(node)
    return [sorted(layers[k]) for k in sorted(layers)]


def expand(
    graph: Graph, seeds: Iterable[str], *, hops: int = 2, direction: Direction = "both"
) -> dict[str, int]:
    """Multi-hop expansion: every node within ``hops`` of any seed, with its distance."""
    adj = graph.adjacency(direction)
    dist: dict[int, int] = {}
    queue: deque[int] = deque()
    for seed in sorted(set(seeds)):
        i = graph.require(seed)
        dist[i] = 0
        queue.append(i)
    while queue:
        current = queue.popleft()
        if dist[current] >= hops:
            continue
        for nxt in adj[current]:
            if nxt not in dist:
                dist[nxt] = dist[current] + 1
                queue.append(nxt)
    return {graph.nodes[i]: d for i, d in sorted(dist.items(), key=lambda kv: (kv[1], kv[0]))}


@dataclass(frozen=True, slots=True)
class Neighbor:
    node: str
    relationship: str
    direction: str  # "out": node is a target of the given node; "in": a source
    weight: float


def neighbors(
    graph: Graph,
    node: str,
    *,
    direction: Direction = "both",
    relationships: Sequence[str] | None = None,
) -> list[Neighbor]:
    """Direct neighbours through each edge, ordered by direction, then id, then relationship."""
    graph.require(node)
    rels = {str(r) for r in relationships} if relationships else None
    out: list[Neighbor] = []
    for e in graph.edges:
        if rels is not None and e.relationship not in rels:
            continue
        if e.source == node and direction in ("out", "both"):
            out.append(Neighbor(e.target, e.relationship, "out", e.weight))
        if e.target == node and direction in ("in", "both"):
            out.append(Neighbor(e.source, e.relationship, "in", e.weight))
    out.sort(key=lambda n: (n.direction != "out", n.node, n.relationship))
    return out
