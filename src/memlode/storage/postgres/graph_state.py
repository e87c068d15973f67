"""The graph as the algorithms read it, and the centrality cache they write, on PostgreSQL (the
counterpart of ``memlode.storage.graph_state``; Protocol ``GraphStateRows``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.storage.postgres import store_settings

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    import psycopg

__all__ = [
    "centrality_rows",
    "edge_rows",
    "fingerprint_rows",
    "node_ids",
    "write_centrality",
]


def _scope(namespace: str | None, alias: str) -> tuple[str, list[object]]:
    if namespace is None:
        return "TRUE", []
    return f"{alias}.namespace = %s", [namespace]


def node_ids(
    conn: psycopg.Connection[Any], namespace: str | None, kinds: Sequence[str] | None
) -> list[str]:
    """Ids of the namespace's nodes (every namespace: None), of ``kinds`` when given."""
    where, params = _scope(namespace, "n")
    if kinds:
        where += " AND n.kind = ANY(%s)"
        params = [*params, list(kinds)]
    rows = conn.execute(f"SELECT n.id FROM graph_nodes n WHERE {where}", params).fetchall()
    return [r[0] for r in rows]


def edge_rows(
    conn: psycopg.Connection[Any], namespace: str | None, relationships: Sequence[str] | None
) -> Iterator[tuple[Any, ...]]:
    """(source, target, relationship, weight) of the edges leaving the namespace's nodes."""
    where, params = _scope(namespace, "s")
    if relationships:
        where += " AND e.relationship = ANY(%s)"
        params = [*params, [str(r) for r in relationships]]
    rows = conn.execute(
        "SELECT e.source_id, e.target_id, e.relationship, e.weight FROM graph_edges e"
        f" JOIN graph_nodes s ON s.id = e.source_id WHERE {where}",
        params,
    ).fetchall()
    return iter([tuple(r) for r in rows])


def fingerprint_rows(conn: psycopg.Connection[Any], namespace: str | None) -> list[list[Any]]:
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
    return [list(node_row or ()), list(edge_row or ())]


def write_centrality(
    conn: psycopg.Connection[Any],
    rows: Sequence[tuple[Any, ...]],
    settings_key: str,
    fingerprint: str,
) -> None:
    """Upsert (node_id, pagerank, betweenness, degree, cluster, computed_at) rows and record
    the fingerprint of the graph they came from under ``settings_key``."""
    if rows:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO graph_centrality (node_id, pagerank, betweenness, degree, cluster,"
                " computed_at) VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (node_id) DO UPDATE"
                " SET pagerank = excluded.pagerank, betweenness = excluded.betweenness,"
                " degree = excluded.degree, cluster = excluded.cluster,"
                " computed_at = excluded.computed_at",
                rows,
            )
    store_settings.put_setting(conn, settings_key, fingerprint)


def centrality_rows(conn: psycopg.Connection[Any], ids: Sequence[str]) -> Iterator[tuple[Any, ...]]:
    """(node_id, pagerank, betweenness, degree, cluster) of those of ``ids`` computed."""
    rows = conn.execute(
        "SELECT node_id, pagerank, betweenness, degree, cluster FROM graph_centrality"
        " WHERE node_id = ANY(%s)",
        (list(ids),),
    ).fetchall()
    return iter(rows)
