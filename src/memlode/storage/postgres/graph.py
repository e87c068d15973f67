"""The persisted graph on PostgreSQL: ``graph_nodes`` and ``graph_edges`` (the counterpart of
``memlode.storage.graph``; Protocol ``GraphRows``).

Memories take part in the graph through a node of kind ``memory`` whose id is the memory id;
deleting the memory deletes the node and, by cascade, its edges. Properties are jsonb.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.fastjson import dumps
from memlode.storage import scrub
from memlode.storage.graph import Neighbor, Node
from memlode.storage.postgres import capture
from memlode.types import Edge, Relationship, format_ts, utcnow

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

    import psycopg

__all__ = [
    "add_edge",
    "edges_of",
    "ensure_memory_node",
    "iter_edges",
    "neighbors",
    "row_to_edge",
    "upsert_node",
]

EDGE_COLUMNS = "e.source_id, e.target_id, e.relationship, e.weight, e.properties, e.created_at"


def upsert_node(conn: psycopg.Connection[Any], node: Node) -> None:
    now = format_ts(utcnow())
    conn.execute(
        "INSERT INTO graph_nodes (id, kind, name, namespace, memory_id, properties, created_at,"
        " updated_at) VALUES (%s, %s, %s, %s, %s, %s::jsonb, %s, %s)"
        " ON CONFLICT (id) DO UPDATE SET name = excluded.name, properties = excluded.properties,"
        " updated_at = excluded.updated_at",
        (
            node.id,
            str(node.kind),
            scrub.text(node.name),
            node.namespace,
            node.memory_id,
            dumps(scrub.mapping(node.properties), sort_keys=True),
            now,
            now,
        ),
    )


def ensure_memory_node(
    conn: psycopg.Connection[Any], memory_id: str, name: str, namespace: str
) -> None:
    capture.ensure_memory_node(conn, memory_id, name, namespace)


def add_edge(conn: psycopg.Connection[Any], edge: Edge, *, keep_existing: bool = False) -> bool:
    """Insert or update (weight, properties) an edge; True when it is new. With
    ``keep_existing`` an edge that is already there stays as it is."""
    properties = dumps(scrub.mapping(edge.properties), sort_keys=True)
    key = (edge.source_id, edge.target_id, str(edge.relationship))
    cur = conn.execute(
        "INSERT INTO graph_edges (source_id, target_id, relationship, weight, properties,"
        " created_at) VALUES (%s, %s, %s, %s, %s::jsonb, %s)"
        " ON CONFLICT ON CONSTRAINT graph_edges_unique DO NOTHING",
        (*key, edge.weight, properties, edge.created_at or format_ts(utcnow())),
    )
    if cur.rowcount:
        return True
    if not keep_existing:
        conn.execute(
            "UPDATE graph_edges SET weight = %s, properties = %s::jsonb WHERE source_id = %s"
            " AND target_id = %s AND relationship = %s",
            (edge.weight, properties, *key),
        )
    return False


def row_to_edge(row: Sequence[Any]) -> Edge:
    """A row of ``EDGE_COLUMNS`` (properties already decoded from jsonb)."""
    return Edge(
        source_id=row[0],
        target_id=row[1],
        relationship=Relationship(row[2]),
        weight=row[3],
        properties=dict(row[4]),
        created_at=row[5],
    )


def edges_of(conn: psycopg.Connection[Any], node_ids: Sequence[str]) -> list[Edge]:
    """Every edge touching any of ``node_ids``."""
    if not node_ids:
        return []
    wanted = list(node_ids)
    rows = conn.execute(
        f"SELECT {EDGE_COLUMNS} FROM graph_edges e"
        " WHERE e.source_id = ANY(%s) OR e.target_id = ANY(%s) ORDER BY e.id",
        (wanted, wanted),
    )
    return [row_to_edge(row) for row in rows]


def iter_edges(conn: psycopg.Connection[Any], namespace: str | None = None) -> Iterable[Edge]:
    """Edges between memory nodes (optionally of one namespace), for export."""
    return _iter_edges(conn, namespace)


def _iter_edges(conn: psycopg.Connection[Any], namespace: str | None) -> Iterator[Edge]:
    sql = (
        f"SELECT {EDGE_COLUMNS} FROM graph_edges e JOIN graph_nodes s ON s.id = e.source_id"
        " JOIN graph_nodes t ON t.id = e.target_id"
        " WHERE s.kind = 'memory' AND t.kind = 'memory'"
    )
    params: list[object] = []
    if namespace is not None:
        sql += " AND s.namespace = %s"
        params.append(namespace)
    sql += " ORDER BY e.id"
    for row in conn.execute(sql, params):
        yield row_to_edge(row)


def neighbors(
    conn: psycopg.Connection[Any],
    node_id: str,
    relationships: Sequence[Relationship] = (),
    direction: str = "both",
) -> list[Neighbor]:
    rel_clause = ""
    rel_params: list[object] = []
    if relationships:
        rel_clause = " AND e.relationship = ANY(%s)"
        rel_params = [[str(r) for r in relationships]]
    out: list[Neighbor] = []
    for side, near, far in (("out", "source_id", "target_id"), ("in", "target_id", "source_id")):
        if direction not in (side, "both"):
            continue
        rows = conn.execute(
            "SELECT n.id, n.kind, n.name, n.memory_id, e.relationship, e.weight FROM graph_edges e"
            f" JOIN graph_nodes n ON n.id = e.{far} WHERE e.{near} = %s{rel_clause}"
            " ORDER BY e.id",
            [node_id, *rel_params],
        )
        out += [Neighbor(r[0], r[1], r[2], r[3], r[4], side, r[5]) for r in rows]
    return out
