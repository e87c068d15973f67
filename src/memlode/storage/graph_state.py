"""The graph as the algorithms read it, and what they derive from it: node ids and edge tuples
of a namespace, a fingerprint that changes with any node or edge, and the centrality cache
(``graph_centrality``). ``memlode.graph.store`` computes; this module reads and writes, on
SQLite and PostgreSQL alike."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memlode.storage.sql import Connection

__all__ = [
    "centrality_rows",
    "edge_rows",
    "fingerprint_rows",
    "node_ids",
    "write_centrality",
]


def _scope(namespace: str | None, alias: str) -> tuple[str, list[object]]:
    if namespace is None:
        return "1 = 1", []
    return f"{alias}.namespace = ?", [namespace]


def node_ids(conn: Connection, namespace: str | None, kinds: Sequence[str] | None) -> list[str]:
    """Ids of the namespace's nodes (every namespace: None), of ``kinds`` when given."""
    where, params = _scope(namespace, "n")
    if kinds:
        where += f" AND n.kind IN ({','.join('?' * len(kinds))})"
        params = [*params, *kinds]
    # plain tuples, not the connection's Row objects: a code graph has 10^4-10^5 rows (SQLite;
    # a PostgreSQL cursor has no row factory to unset and keeps its tuple-based rows)
    cur = conn.cursor()
    cur.row_factory = None
    return [r[0] for r in cur.execute(f"SELECT n.id FROM graph_nodes n WHERE {where}", params)]


def edge_rows(
    conn: Connection, namespace: str | None, relationships: Sequence[str] | None
) -> Iterator[tuple[Any, ...]]:
    """(source, target, relationship, weight) of the edges leaving the namespace's nodes."""
    where, params = _scope(namespace, "s")
    if relationships:
        where += f" AND e.relationship IN ({','.join('?' * len(relationships))})"
        params = [*params, *(str(r) for r in relationships)]
    cur = conn.cursor()
    cur.row_factory = None
    return iter(  # the cursor itself on SQLite
        cur.execute(
            "SELECT e.source_id, e.target_id, e.relationship, e.weight FROM graph_edges e"
            f" JOIN graph_nodes s ON s.id = e.source_id WHERE {where}",
            params,
        )
    )


def fingerprint_rows(conn: Connection, namespace: str | None) -> list[list[Any]]:
    """[[nodes, latest node change], [edges, latest edge id, weight sum]] of the namespace."""
    where, params = _scope(namespace, "n")
    node_row = conn.execute(
        f"SELECT count(*), max(n.updated_at) FROM graph_nodes n WHERE {where}", params
    ).fetchone()
    s_where, s_params = _scope(namespace, "s")
    edge_row = conn.execute(
        "SELECT count(*), max(e.id), sum(e.weight) FROM graph_edges e"
        f" JOIN graph_nodes s ON s.id = e.source_id WHERE {s_where}",
        s_params,
    ).fetchone()
    return [list(node_row), list(edge_row)]


def write_centrality(
    conn: Connection,
    rows: Sequence[tuple[Any, ...]],
    settings_key: str,
    fingerprint: str,
) -> None:
    """Upsert (node_id, pagerank, betweenness, degree, cluster, computed_at) rows and record
    the fingerprint of the graph they came from under ``settings_key``."""
    # every node of the namespace gets a row (rows of deleted nodes go with them: ON DELETE
    # CASCADE), so an upsert replaces the namespace's rows without a DELETE first
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
        (settings_key, fingerprint),
    )


def centrality_rows(conn: Connection, ids: Sequence[str]) -> Iterator[tuple[Any, ...]]:
    """(node_id, pagerank, betweenness, degree, cluster) of those of ``ids`` computed, 500 ids
    a query."""
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        yield from conn.execute(
            "SELECT node_id, pagerank, betweenness, degree, cluster FROM graph_centrality"
            f" WHERE node_id IN ({marks})",
            chunk,
        )
