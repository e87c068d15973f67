"""The persisted graph: ``graph_nodes`` and ``graph_edges``.

Memories take part in the graph through a node of kind ``memory`` whose id is the memory id;
deleting the memory deletes the node and, by cascade, its edges. One module for both backends
(its SQL runs on SQLite and, through ``PgConnection``, on PostgreSQL).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from memlode.storage import capture, scrub
from memlode.storage.values import Neighbor, Node
from memlode.types import Edge, Relationship, format_ts, utcnow

if TYPE_CHECKING:
    from memlode.storage.sql import Connection, Row

__all__ = [
    "add_edge",
    "edges_of",
    "ensure_memory_node",
    "iter_edges",
    "neighbors",
    "row_to_edge",
    "upsert_node",
]


def upsert_node(conn: Connection, node: Node) -> None:
    now = format_ts(utcnow())
    conn.execute(
        "INSERT INTO graph_nodes (id, kind, name, namespace, memory_id, properties, created_at,"
        " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (id) DO UPDATE SET name = excluded.name, properties = excluded.properties,"
        " updated_at = excluded.updated_at",
        (
            node.id,
            str(node.kind),
            scrub.text(node.name),
            node.namespace,
            node.memory_id,
            json.dumps(scrub.mapping(node.properties), sort_keys=True),
            now,
            now,
        ),
    )


def ensure_memory_node(conn: Connection, memory_id: str, name: str, namespace: str) -> None:
    capture.ensure_memory_node(conn, memory_id, name, namespace)


def add_edge(conn: Connection, edge: Edge, *, keep_existing: bool = False) -> bool:
    """Insert or update (weight, properties) an edge; True when it is new. With
    ``keep_existing`` an edge that is already there stays as it is."""
    created = edge.created_at or format_ts(utcnow())
    cur = conn.execute(
        "INSERT INTO graph_edges (source_id, target_id, relationship, weight, properties,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (source_id, target_id, relationship) DO NOTHING",
        (
            edge.source_id,
            edge.target_id,
            str(edge.relationship),
            edge.weight,
            json.dumps(scrub.mapping(edge.properties), sort_keys=True),
            created,
        ),
    )
    if cur.rowcount:
        return True
    if keep_existing:
        return False
    conn.execute(
        "UPDATE graph_edges SET weight = ?, properties = ? WHERE source_id = ? AND target_id = ?"
        " AND relationship = ?",
        (
            edge.weight,
            json.dumps(scrub.mapping(edge.properties), sort_keys=True),
            edge.source_id,
            edge.target_id,
            str(edge.relationship),
        ),
    )
    return False


def row_to_edge(row: Row) -> Edge:
    return Edge(
        source_id=row["source_id"],
        target_id=row["target_id"],
        relationship=Relationship(row["relationship"]),
        weight=row["weight"],
        properties=json.loads(row["properties"]),
        created_at=row["created_at"],
    )


def edges_of(conn: Connection, node_ids: Sequence[str]) -> list[Edge]:
    """Every edge touching any of ``node_ids``."""
    out: dict[tuple[str, str, str], Edge] = {}
    for start in range(0, len(node_ids), 400):
        chunk = list(node_ids[start : start + 400])
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            "SELECT source_id, target_id, relationship, weight, properties, created_at"
            f" FROM graph_edges WHERE source_id IN ({marks}) OR target_id IN ({marks})",
            chunk + chunk,
        )
        for row in rows:
            edge = row_to_edge(row)
            out[(edge.source_id, edge.target_id, str(edge.relationship))] = edge
    return list(out.values())


def iter_edges(conn: Connection, namespace: str | None = None) -> Iterable[Edge]:
    """Edges between memory nodes (optionally of one namespace), for export."""
    sql = (
        "SELECT e.source_id, e.target_id, e.relationship, e.weight, e.properties, e.created_at"
        " FROM graph_edges e JOIN graph_nodes s ON s.id = e.source_id"
        " JOIN graph_nodes t ON t.id = e.target_id"
        " WHERE s.kind = 'memory' AND t.kind = 'memory'"
    )
    params: list[object] = []
    if namespace is not None:
        sql += " AND s.namespace = ?"
        params.append(namespace)
    sql += " ORDER BY e.id"
    for row in conn.execute(sql, params):
        yield row_to_edge(row)


def neighbors(
    conn: Connection,
    node_id: str,
    relationships: Sequence[Relationship] = (),
    direction: str = "both",
) -> list[Neighbor]:
    rel_clause = ""
    rel_params: list[object] = []
    if relationships:
        rel_clause = f" AND e.relationship IN ({','.join('?' * len(relationships))})"
        rel_params = [str(r) for r in relationships]
    out: list[Neighbor] = []
    if direction in ("out", "both"):
        rows = conn.execute(
            "SELECT n.id, n.kind, n.name, n.memory_id, e.relationship, e.weight FROM graph_edges e"
            f" JOIN graph_nodes n ON n.id = e.target_id WHERE e.source_id = ?{rel_clause}"
            " ORDER BY e.id",
            [node_id, *rel_params],
        )
        out += [Neighbor(r[0], r[1], r[2], r[3], r[4], "out", r[5]) for r in rows]
    if direction in ("in", "both"):
        rows = conn.execute(
            "SELECT n.id, n.kind, n.name, n.memory_id, e.relationship, e.weight FROM graph_edges e"
            f" JOIN graph_nodes n ON n.id = e.source_id WHERE e.target_id = ?{rel_clause}"
            " ORDER BY e.id",
            [node_id, *rel_params],
        )
        out += [Neighbor(r[0], r[1], r[2], r[3], r[4], "in", r[5]) for r in rows]
    return out
