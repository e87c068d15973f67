"""What code navigation (``memlode.code.navigate``: find, impact, dependencies, details, top
nodes, clusters) reads of the code graph: symbols by name, edges level by level, node details,
and centrality rankings. Reads only; the walk and its limits are the caller's."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = [
    "cluster_sizes",
    "cluster_top",
    "contained",
    "edges_around",
    "edges_from",
    "edges_into",
    "node_details",
    "symbols_ending",
    "symbols_named",
    "top_by_pagerank",
]


def _symbol_ids(
    conn: sqlite3.Connection, namespace: str, where: str, value: str, limit: int
) -> list[str]:
    rows = conn.execute(
        f"SELECT node_id FROM code_symbols WHERE namespace = ? AND {where}"
        " ORDER BY length(qualified_name), qualified_name LIMIT ?",
        (namespace, value, limit),
    ).fetchall()
    return [r[0] for r in rows]


def symbols_ending(conn: sqlite3.Connection, namespace: str, tail: str, limit: int) -> list[str]:
    """Node ids of the namespace's symbols whose qualified name ends with ``tail`` (taken
    literally), shortest qualified name first."""
    escaped = tail.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return _symbol_ids(conn, namespace, "qualified_name LIKE ? ESCAPE '\\'", "%" + escaped, limit)


def symbols_named(conn: sqlite3.Connection, namespace: str, name: str, limit: int) -> list[str]:
    """Node ids of the namespace's symbols called ``name``, shortest qualified name first."""
    return _symbol_ids(conn, namespace, "name = ?", name, limit)


def contained(conn: sqlite3.Connection, sources: Sequence[str]) -> list[str]:
    """Targets of CONTAINS edges from ``sources`` (a class's members)."""
    marks = ",".join("?" * len(sources))
    rows = conn.execute(
        "SELECT target_id FROM graph_edges WHERE relationship = 'CONTAINS'"
        f" AND source_id IN ({marks})",
        list(sources),
    ).fetchall()
    return [r[0] for r in rows]


def edges_into(
    conn: sqlite3.Connection, targets: Sequence[str], relationships: Sequence[str]
) -> Iterator[tuple[Any, ...]]:
    """(source, relationship) of edges of ``relationships`` into ``targets``, 500 a query."""
    rels = ",".join("?" * len(relationships))
    for start in range(0, len(targets), 500):
        chunk = list(targets[start : start + 500])
        marks = ",".join("?" * len(chunk))
        yield from conn.execute(
            "SELECT e.source_id, e.relationship FROM graph_edges e"
            f" WHERE e.target_id IN ({marks}) AND e.relationship IN ({rels})"
            " ORDER BY e.source_id, e.relationship",
            [*chunk, *relationships],
        )


def edges_from(
    conn: sqlite3.Connection, sources: Sequence[str], relationships: Sequence[str]
) -> sqlite3.Cursor:
    """(target, relationship) of edges of ``relationships`` out of ``sources``."""
    rels = ",".join("?" * len(relationships))
    marks = ",".join("?" * len(sources))
    return conn.execute(
        f"SELECT target_id, relationship FROM graph_edges WHERE source_id IN ({marks})"
        f" AND relationship IN ({rels}) ORDER BY target_id, relationship",
        [*sources, *relationships],
    )


def edges_around(
    conn: sqlite3.Connection,
    node_id: str,
    relationships: Sequence[str],
    *,
    incoming: bool,
    by_weight: bool,
    limit: int,
) -> list[tuple[str, str, str]]:
    """(other node, its name, relationship) of the node's edges of ``relationships``:
    ``incoming`` (callers) or outgoing (callees, members), heaviest first or by id."""
    other, this = ("source_id", "target_id") if incoming else ("target_id", "source_id")
    marks = ",".join("?" * len(relationships))
    order = f"e.weight DESC, e.{other}" if by_weight else f"e.{other}"
    rows = conn.execute(
        f"SELECT e.{other}, n.name, e.relationship FROM graph_edges e JOIN graph_nodes n"
        f" ON n.id = e.{other} WHERE e.{this} = ? AND e.relationship IN ({marks})"
        f" ORDER BY {order} LIMIT ?",
        (node_id, *relationships, limit),
    ).fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


def node_details(
    conn: sqlite3.Connection, node_ids: Sequence[str]
) -> dict[str, tuple[str, str, str, int]]:
    """(name, kind, path, line) of symbol and file nodes (other nodes: name and kind)."""
    out: dict[str, tuple[str, str, str, int]] = {}
    for start in range(0, len(node_ids), 500):
        chunk = list(node_ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(
            "SELECT s.node_id, s.name, s.kind, f.path, s.line_start FROM code_symbols s"
            f" JOIN code_files f ON f.id = s.file_id WHERE s.node_id IN ({marks})",
            chunk,
        ):
            out[row[0]] = (row[1], row[2], row[3], row[4])
        for row in conn.execute(
            f"SELECT node_id, path FROM code_files WHERE node_id IN ({marks})", chunk
        ):
            out.setdefault(row[0], (row[1].rsplit("/", 1)[-1], "file", row[1], 0))
        for row in conn.execute(
            f"SELECT id, name, kind FROM graph_nodes WHERE id IN ({marks})", chunk
        ):
            out.setdefault(row[0], (row[1], row[2], "", 0))
    return out


def top_by_pagerank(
    conn: sqlite3.Connection, namespace: str, kinds: Sequence[str], limit: int
) -> list[Any]:
    """(id, name, kind, path, pagerank, betweenness, degree, cluster), highest PageRank first."""
    kind_clause = f" AND n.kind IN ({','.join('?' * len(kinds))})" if kinds else ""
    return conn.execute(
        "SELECT n.id, n.name, n.kind, coalesce(f.path, json_extract(n.properties, '$.path'), ''),"
        " c.pagerank, c.betweenness, c.degree, c.cluster FROM graph_centrality c"
        " JOIN graph_nodes n ON n.id = c.node_id LEFT JOIN code_files f ON f.node_id = n.id"
        f" WHERE n.namespace = ?{kind_clause} ORDER BY c.pagerank DESC, n.id LIMIT ?",
        (namespace, *kinds, limit),
    ).fetchall()


def cluster_sizes(conn: sqlite3.Connection, namespace: str, limit: int) -> list[Any]:
    """(cluster, size) of the largest communities."""
    return conn.execute(
        "SELECT c.cluster, count(*) FROM graph_centrality c JOIN graph_nodes n"
        " ON n.id = c.node_id WHERE n.namespace = ? AND c.cluster IS NOT NULL"
        " GROUP BY c.cluster ORDER BY count(*) DESC, c.cluster LIMIT ?",
        (namespace, limit),
    ).fetchall()


def cluster_top(conn: sqlite3.Connection, namespace: str, cluster: int, limit: int) -> list[Any]:
    """The community's most central nodes, as ``top_by_pagerank`` gives them."""
    return conn.execute(
        "SELECT n.id, n.name, n.kind, coalesce(json_extract(n.properties, '$.path'), ''),"
        " c.pagerank, c.betweenness, c.degree, c.cluster FROM graph_centrality c"
        " JOIN graph_nodes n ON n.id = c.node_id WHERE n.namespace = ? AND c.cluster = ?"
        " ORDER BY c.pagerank DESC, n.id LIMIT ?",
        (namespace, cluster, limit),
    ).fetchall()
