"""The graph as stored: loading ``graph_nodes``/``graph_edges``, and the centrality cache.

``graph_centrality`` is derived data. :func:`recompute_centrality` rebuilds it for a namespace
and records a fingerprint of the graph it saw; :func:`ensure_centrality` recomputes only when
the graph changed since. The recall engine's graph-strength signal reads it with
:func:`centrality_of`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memlode.graph.centrality import betweenness, degree_centrality, pagerank
from memlode.graph.communities import communities
from memlode.graph.model import Graph, GraphEdge
from memlode.storage import graph_state
from memlode.storage.store_settings import get_setting
from memlode.types import format_ts, utcnow

if TYPE_CHECKING:
    from memlode.storage.store import Store

__all__ = [
    "BETWEENNESS_CUTOFF",
    "BETWEENNESS_EXACT_LIMIT",
    "Centrality",
    "CentralityRun",
    "centrality_of",
    "ensure_centrality",
    "graph_fingerprint",
    "load_graph",
    "recompute_centrality",
]

# Exact betweenness costs O(nodes x edges); beyond this many nodes only paths up to
# BETWEENNESS_CUTOFF edges are counted (a code graph's useful bridges are short paths:
# caller -> function -> callee). Measured in bench/bench_code.py.
BETWEENNESS_EXACT_LIMIT = 3000
BETWEENNESS_CUTOFF = 3
_SETTINGS_KEY = "graph.centrality:"


@dataclass(frozen=True, slots=True)
class Centrality:
    pagerank: float
    betweenness: float
    degree: float
    cluster: int | None


@dataclass(frozen=True, slots=True)
class CentralityRun:
    namespace: str | None
    nodes: int
    edges: int
    communities: int
    seconds: float


def load_graph(
    db: Store,
    namespace: str | None = None,
    *,
    relationships: Sequence[str] | None = None,
    kinds: Sequence[str] | None = None,
) -> Graph:
    """Nodes of a namespace (all when None) and the edges between them."""
    nodes = graph_state.node_ids(db.conn, namespace, kinds)
    keep = set(nodes)
    rows = graph_state.edge_rows(db.conn, namespace, relationships)
    new = tuple.__new__  # a row is (source, target, relationship, weight): a GraphEdge as is
    edges = [new(GraphEdge, row) for row in rows if row[0] in keep and row[1] in keep]
    return Graph(nodes, edges)


def graph_fingerprint(db: Store, namespace: str | None) -> str:
    """Changes whenever a node or edge of the namespace is added, removed or updated."""
    return json.dumps(graph_state.fingerprint_rows(db.conn, namespace))


def recompute_centrality(
    db: Store,
    namespace: str | None = None,
    *,
    method: str = "leiden",
    fingerprint: str | None = None,
) -> CentralityRun:
    """Recompute PageRank, betweenness, degree and community of every node of a namespace."""
    started = time.perf_counter()
    fingerprint = fingerprint or graph_fingerprint(db, namespace)
    graph = load_graph(db, namespace)
    cutoff = BETWEENNESS_CUTOFF if len(graph) > BETWEENNESS_EXACT_LIMIT else None
    pr = pagerank(graph)
    bt = betweenness(graph, cutoff=cutoff)
    deg = degree_centrality(graph)
    labels = communities(graph, method="louvain" if method == "louvain" else "leiden")
    now = format_ts(utcnow())
    rows = [(node, pr[node], bt[node], deg[node], labels.get(node), now) for node in graph.nodes]
    key = _SETTINGS_KEY + (namespace if namespace is not None else "*")
    with db.write() as conn:
        graph_state.write_centrality(conn, rows, key, fingerprint)
    return CentralityRun(
        namespace,
        len(graph.nodes),
        len(graph.edges),
        len(set(labels.values())),
        time.perf_counter() - started,
    )


def ensure_centrality(db: Store, namespace: str | None = None) -> CentralityRun | None:
    """Recompute when the graph changed since the last run (or never ran); else None."""
    key = _SETTINGS_KEY + (namespace if namespace is not None else "*")
    stored = get_setting(db.conn, key)
    fingerprint = graph_fingerprint(db, namespace)
    if stored is not None and stored == fingerprint:
        return None
    return recompute_centrality(db, namespace, fingerprint=fingerprint)


def centrality_of(db: Store, node_ids: Iterable[str]) -> dict[str, Centrality]:
    """Cached centrality of the given nodes (nodes never computed are absent)."""
    ids = list(dict.fromkeys(node_ids))
    out: dict[str, Centrality] = {}
    for row in graph_state.centrality_rows(db.conn, ids):
        out[row[0]] = Centrality(row[1], row[2], row[3], row[4])
    return out
