"""A graph over string ids: the value every algorithm in ``memlode.graph`` takes.

Vertices are numbered in sorted id order, and adjacency lists are sorted, so every traversal and
every tie is resolved by id: the same nodes and edges always give the same answer. The igraph
object behind it is built lazily, on the first algorithm that needs it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal, NamedTuple

from memlode.errors import InvalidInput, MissingDependency

__all__ = ["Direction", "Graph", "GraphEdge"]

Direction = Literal["out", "in", "both"]


class GraphEdge(NamedTuple):
    """A typed, weighted edge (a tuple: cheap to build by the hundred thousand)."""

    source: str
    target: str
    relationship: str = "RELATES_TO"
    weight: float = 1.0


def igraph_module() -> Any:
    try:
        import igraph
    except ImportError:
        raise MissingDependency("python-igraph", "pip install igraph") from None
    return igraph


class Graph:
    """Directed graph with weighted, typed edges. Nodes named only by edges are added."""

    def __init__(
        self,
        nodes: Iterable[str] = (),
        edges: Iterable[GraphEdge | tuple[str, str] | tuple[str, str, str, float]] = (),
    ) -> None:
        parsed = [edge if isinstance(edge, GraphEdge) else GraphEdge(*edge) for edge in edges]
        ids = set(nodes)
        ids.update(e.source for e in parsed)
        ids.update(e.target for e in parsed)
        self.nodes: tuple[str, ...] = tuple(sorted(ids))
        self.index: dict[str, int] = {node: i for i, node in enumerate(self.nodes)}
        parsed.sort()  # ids sort like their indices: (source, target, relationship) order
        self.edges: tuple[GraphEdge, ...] = tuple(parsed)
        self._ig: Any = None
        self._pairs: list[tuple[int, int]] | None = None
        self._adj: dict[str, list[list[int]]] = {}

    def __len__(self) -> int:
        return len(self.nodes)

    def __contains__(self, node: object) -> bool:
        return node in self.index

    def require(self, node: str) -> int:
        try:
            return self.index[node]
        except KeyError:
            raise InvalidInput(f"no node {node!r} in the graph") from None

    def igraph(self) -> Any:
        """The igraph.Graph behind this graph (vertex i is ``nodes[i]``; attribute ``weight``)."""
        if self._ig is None:
            ig = igraph_module()
            graph = ig.Graph(n=len(self.nodes), directed=True)
            graph.add_edges(self._ends())
            graph.es["weight"] = [float(e.weight) for e in self.edges]
            self._ig = graph
        return self._ig

    def _ends(self) -> list[tuple[int, int]]:
        """(source index, target index) of every edge, in edge order."""
        if self._pairs is None:
            index = self.index
            self._pairs = [(index[e[0]], index[e[1]]) for e in self.edges]
        return self._pairs

    def adjacency(self, direction: Direction = "out") -> list[list[int]]:
        """Sorted, de-duplicated neighbour indices of every vertex."""
        cached = self._adj.get(direction)
        if cached is not None:
            return cached
        adj: list[set[int]] = [set() for _ in self.nodes]
        for e in self.edges:
            s, t = self.index[e.source], self.index[e.target]
            if direction in ("out", "both"):
                adj[s].add(t)
            if direction in ("in", "both"):
                adj[t].add(s)
        result = [sorted(n) for n in adj]
        self._adj[direction] = result
        return result

    def filtered(
        self, relationships: Sequence[str] | None = None, nodes: Iterable[str] | None = None
    ) -> Graph:
        """The graph restricted to some relationships and/or some nodes."""
        keep = set(nodes) if nodes is not None else None
        rels = {str(r) for r in relationships} if relationships else None
        edges = [
            e
            for e in self.edges
            if (rels is None or e.relationship in rels)
            and (keep is None or (e.source in keep and e.target in keep))
        ]
        return Graph(self.nodes if keep is None else keep, edges)

    def undirected_weights(self) -> tuple[list[tuple[int, int]], list[float]]:
        """Edges merged per unordered pair (weights summed in edge order), self loops dropped."""
        merged: dict[tuple[int, int], float] = {}
        get = merged.get
        for (s, t), edge in zip(self._ends(), self.edges, strict=True):
            if s == t:
                continue
            key = (s, t) if s < t else (t, s)
            merged[key] = get(key, 0.0) + float(edge[3])
        pairs = sorted(merged)
        return pairs, [merged[p] for p in pairs]
