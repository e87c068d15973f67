"""The memory graph as hybrid recall reads it, on PostgreSQL (the counterpart of
``memlode.storage.recall_graph``; Protocol ``RecallGraphRows``): whether a namespace has memory
edges, the memories linked to a few seeds, each memory's cached centrality or its degree."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    import psycopg

__all__ = ["has_memory_edges", "linked_memories", "memory_centrality", "memory_degrees"]


def has_memory_edges(conn: psycopg.Connection[Any], namespace: str | None) -> bool:
    """True when a memory node of ``namespace`` (any, for None) has an outgoing edge."""
    sql = (
        "SELECT 1 FROM graph_nodes n JOIN graph_edges e ON e.source_id = n.id"
        " WHERE n.kind = 'memory'"
    )
    params: list[object] = []
    if namespace is not None:
        sql += " AND n.namespace = %s"
        params.append(namespace)
    return conn.execute(sql + " LIMIT 1", params).fetchone() is not None


def linked_memories(
    conn: psycopg.Connection[Any],
    seed_ids: Sequence[str],
    skip: Sequence[str] = (),
    limit: int | None = None,
) -> list[str]:
    """The memory ids at the other end of the edges touching one of ``seed_ids``, not of the
    relationships ``skip``; the ``limit`` heaviest edges' ends when given."""
    if not seed_ids:
        return []
    seeds = list(seed_ids)
    rows = conn.execute(
        "SELECT n.memory_id FROM graph_edges e JOIN graph_nodes n"
        " ON n.id = CASE WHEN e.source_id = ANY(%s) THEN e.target_id ELSE e.source_id END"
        " WHERE (e.source_id = ANY(%s) OR e.target_id = ANY(%s))"
        " AND NOT (e.relationship = ANY(%s)) AND n.memory_id IS NOT NULL"
        " ORDER BY e.weight DESC, n.memory_id" + (" LIMIT %s" if limit is not None else ""),
        [seeds, seeds, seeds, list(skip), *([limit] if limit is not None else [])],
    ).fetchall()
    return [str(r[0]) for r in rows]


def memory_centrality(
    conn: psycopg.Connection[Any], ids: Sequence[str]
) -> list[tuple[str, float, float, float, int | None]]:
    """(memory id, PageRank, betweenness, degree, cluster) from the centrality cache."""
    rows = conn.execute(
        "SELECT n.memory_id, c.pagerank, c.betweenness, c.degree, c.cluster FROM graph_centrality c"
        " JOIN graph_nodes n ON n.id = c.node_id WHERE n.memory_id = ANY(%s)",
        (list(ids),),
    ).fetchall()
    return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]


def memory_degrees(
    conn: psycopg.Connection[Any], ids: Sequence[str], skip: Sequence[str] = ()
) -> list[tuple[str, int]]:
    """(memory id, number of edges) of each of ``ids`` that has any, not counting edges of the
    relationships in ``skip``."""
    rows = conn.execute(
        "SELECT n.memory_id, count(e.id) FROM graph_nodes n JOIN graph_edges e"
        " ON e.source_id = n.id OR e.target_id = n.id"
        " WHERE n.memory_id = ANY(%s) AND NOT (e.relationship = ANY(%s)) GROUP BY n.memory_id",
        (list(ids), list(skip)),
    ).fetchall()
    return [(r[0], int(r[1])) for r in rows]
