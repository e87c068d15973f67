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

from memlode.graph.centrality import betweenness, degree_centrality, pagerank
from memlode.graph.communities import communities
from memlode.graph.model import Graph, GraphEdge
from memlode.storage.db import Database
from memlode.types import format_ts, utcnow

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


def _scope(namespace: str | None, alias: str) -> tuple[str, list[object]]:
    if namespace is None:
        return "1 = 1", []
    return f"{alias}.namespace = ?", [namespace]


def load_graph(
    db: Database,
    namespace: str | None = None,
    *,
    relationships: Sequence[str] | None = None,
    kinds: Sequence[str] | None = None,
) -> Graph:
    """Nodes of a namespace (all when None) and the edges between them."""
    where, params = _scope(namespace, "n")
    kind_clause = ""
    if kinds:
        kind_clause = f" AND n.kind IN ({','.join('?' * len(kinds))})"
        params = [*params, *kinds]
    # plain tuples, not the connection's Row objects: a code graph has 10^4-10^5 rows
    cur = db.conn.cursor()
    cur.row_factory = None
    nodes = [
        r[0]
        for r in cur.execute(f"SELECT n.id FROM graph_nodes n WHERE {where}{kind_clause}", params)
    ]
    keep = set(nodes)
    rel_clause = ""
    rel_params: list[object] = []
    if relationships:
        rel_clause = f" AND e.relationship IN ({','.join('?' * len(relationships))})"
        rel_params = [str(r) for r in relationships]
    s_where, s_params = _scope(namespace, "s")
    rows = cur.execute(
        "SELECT e.source_id, e.target_id, e.relationship, e.weight FROM graph_edges e"
        f" JOIN graph_nodes s ON s.id = e.source_id WHERE {s_where}{rel_clause}",
        [*s_params, *rel_params],
    )
    new = tuple.__new__  # a row is (source, target, relationship, weight): a GraphEdge as is
    edges = [new(GraphEdge, row) for row in rows if row[0] in keep and row[1] in keep]
    return Graph(nodes, edges)


def graph_fingerprint(db: Database, namespace: str | None) -> str:
    """Changes whenever a node or edge of the namespace is added, removed or updated."""
    where, params = _scope(namespace, "n")
    node_row = db.conn.execute(
        f"SELECT count(*), max(n.updated_at) FROM graph_nodes n WHERE {where}", params
    ).fetchone()
    s_where, s_params = _scope(namespace, "s")
    edge_row = db.conn.execute(
        "SELECT count(*), max(e.id), sum(e.weight) FROM graph_edges e"
        f" JOIN graph_nodes s ON s.id = e.source_id WHERE {s_where}",
        s_params,
    ).fetchone()
    return json.dumps([list(node_row), list(edge_row)])


def recompute_centrality(
    db: Database,
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
    with db.write() as conn:
        # every node of the namespace gets a row (rows of deleted nodes go with them: ON
        # DELETE CASCADE), so an upsert replaces the namespace's rows without a DELETE first
        conn.executemany(
            "INSERT INTO graph_centrality (node_id, pagerank, betweenness, degree, cluster,"
            " computed_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (node_id) DO UPDATE SET"
            " pagerank = excluded.pagerank, betweenness = excluded.betweenness,"
            " degree = excluded.degree, cluster = excluded.cluster,"
            " computed_at = excluded.computed_at",
            rows,
        )
        conn.execute(
            "INSERT INTO store_settings (key, value) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (_SETTINGS_KEY + (namespace if namespace is not None else "*"), fingerprint),
        )
    return CentralityRun(
        namespace,
        len(graph.nodes),
        len(graph.edges),
        len(set(labels.values())),
        time.perf_counter() - started,
    )


def ensure_centrality(db: Database, namespace: str | None = None) -> CentralityRun | None:
    """Recompute when the graph changed since the last run (or never ran); else None."""
    key = _SETTINGS_KEY + (namespace if namespace is not None else "*")
    row = db.one("SELECT value FROM store_settings WHERE key = ?", (key,))
    fingerprint = graph_fingerprint(db, namespace)
    if row is not None and row[0] == fingerprint:
        return None
    return recompute_centrality(db, namespace, fingerprint=fingerprint)


def centrality_of(db: Database, node_ids: Iterable[str]) -> dict[str, Centrality]:
    """Cached centrality of the given nodes (nodes never computed are absent)."""
    ids = list(dict.fromkeys(node_ids))
    out: dict[str, Centrality] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for row in db.conn.execute(
            "SELECT node_id, pagerank, betweenness, degree, cluster FROM graph_centrality"
            f" WHERE node_id IN ({marks})",
            chunk,
        ):
            out[row[0]] = Centrality(row[1], row[2], row[3], row[4])
    return out
