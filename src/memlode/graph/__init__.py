"""Graph algorithms (L2) over node and edge lists, with python-igraph underneath.

Pure functions take a :class:`Graph` (ids + typed, weighted edges) and return plain dicts and
lists, deterministically; :mod:`memlode.graph.store` loads a graph from the store and keeps the
centrality cache. igraph is imported on first use, never at import time.
"""

from memlode.graph.centrality import (
    DAMPING,
    betweenness,
    degree_centrality,
    pagerank,
    personalized_pagerank,
    ranked,
)
from memlode.graph.communities import communities, community_groups
from memlode.graph.model import Direction, Graph, GraphEdge
from memlode.graph.store import (
    Centrality,
    CentralityRun,
    centrality_of,
    ensure_centrality,
    load_graph,
    recompute_centrality,
)
from memlode.graph.traversal import (
    Neighbor,
    bfs,
    connected_components,
    dfs,
    expand,
    neighbors,
    shortest_path,
    strongly_connected_components,
    topological_layers,
)

__all__ = [
    "DAMPING",
    "Centrality",
    "CentralityRun",
    "Direction",
    "Graph",
    "GraphEdge",
    "Neighbor",
    "betweenness",
    "bfs",
    "centrality_of",
    "communities",
    "community_groups",
    "connected_components",
    "degree_centrality",
    "dfs",
    "ensure_centrality",
    "expand",
    "load_graph",
    "neighbors",
    "pagerank",
    "personalized_pagerank",
    "ranked",
    "recompute_centrality",
    "shortest_path",
    "strongly_connected_components",
    "topological_layers",
]
