"""The memory graph as hybrid recall reads it: whether a namespace has memory edges, the
memories linked to a few seed memories, and each memory's cached centrality or its degree.

The scoring of these (which seeds, how the centralities mix) belongs to
``memlode.search.hybrid``; this module only reads, on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memlode.storage.sql import Connection

__all__ = ["has_memory_edges", "linked_memories", "memory_centrality", "memory_degrees"]


def has_memory_edges(conn: Connection, namespace: str | None) -> bool:
    """True when a memory node of ``namespace`` (any, for None) has an outgoing edge."""
    sql = (
        "SELECT 1 FROM graph_nodes n JOIN graph_edges e ON e.source_id = n.id"
        " WHERE n.kind = 'memory'"
    )
    params: list[object] = []
    if namespace is not None:
        sql += " AND n.namespace = ?"
        params.append(namespace)
    return conn.execute(sql + " LIMIT 1", params).fetchone() is not None


def linked_memories(
    conn: Connection,
    seed_ids: Sequence[str],
    skip: Sequence[str] = (),
    limit: int | None = None,
) -> list[str]:
    """The memory ids at the other end of the edges touching one of ``seed_ids``, not of the
    relationships ``skip``; the ``limit`` heaviest edges' ends when given."""
    if not seed_ids:
        return []
    marks = ",".join("?" * len(seed_ids))
    ids = list(seed_ids)
    skipped = ",".join("?" * len(skip)) or "''"
    rows = conn.execute(
        "SELECT n.memory_id FROM graph_edges e JOIN graph_nodes n"
        f" ON n.id = CASE WHEN e.source_id IN ({marks}) THEN e.target_id ELSE e.source_id END"
        f" WHERE (e.source_id IN ({marks}) OR e.target_id IN ({marks}))"
        f" AND e.relationship NOT IN ({skipped}) AND n.memory_id IS NOT NULL"
        " ORDER BY e.weight DESC, n.memory_id" + (" LIMIT ?" if limit is not None else ""),
        [*ids, *ids, *ids, *skip, *([limit] if limit is not None else [])],
    )
    return [memory_id for (memory_id,) in rows]


def memory_centrality(
    conn: Connection, ids: Sequence[str]
) -> list[tuple[str, float, float, float, int | None]]:
    """(memory id, PageRank, betweenness, degree, cluster) from the centrality cache."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows: list[tuple[str, float, float, float, int | None]] = conn.execute(
        "SELECT n.memory_id, c.pagerank, c.betweenness, c.degree, c.cluster FROM graph_centrality c"
        f" JOIN graph_nodes n ON n.id = c.node_id WHERE n.memory_id IN ({marks})",
        list(ids),
    ).fetchall()
    return rows


def memory_degrees(
    conn: Connection, ids: Sequence[str], skip: Sequence[str] = ()
) -> list[tuple[str, int]]:
    """(memory id, number of edges) of each of ``ids`` that has any, not counting edges of the
    relationships in ``skip``."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    skipped = ",".join("?" * len(skip))
    where = f" AND e.relationship NOT IN ({skipped})" if skip else ""
    rows: list[tuple[str, int]] = conn.execute(
        "SELECT n.memory_id, count(e.id) FROM graph_nodes n JOIN graph_edges e"
        f" ON e.source_id = n.id OR e.target_id = n.id"
        f" WHERE n.memory_id IN ({marks}){where} GROUP BY n.memory_id",
        [*ids, *skip],
    ).fetchall()
    return rows
