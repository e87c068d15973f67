"""Reads for walking the memory graph and for decision chains: a node's neighbours along
chosen relationships, a node by id, the nodes named after a topic, and the decision memories
that mention a topic or hold all its words. One module for both backends: the words are
matched by SQLite's FTS5 index or by PostgreSQL's ``text_vector`` (stemmed alike)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memlode.storage.sql import dialect_of

if TYPE_CHECKING:
    from memlode.storage.sql import Connection
    from memlode.storage.values import MemoryFilter

__all__ = ["adjacent", "matching_memories", "mentioning_memories", "node", "topic_nodes"]


def adjacent(
    conn: Connection,
    node_id: str,
    relationships: Sequence[str],
    direction: str,
    memories_only: bool,
) -> list[tuple[str, str, str, str | None, str, str, float]]:
    """(node id, kind, name, memory id, relationship, direction, weight) of each neighbour of
    ``node_id`` ("out", "in" or "both"), along ``relationships`` (any when empty)."""
    extra = ""
    params: list[object] = []
    if relationships:
        extra += f" AND e.relationship IN ({','.join('?' * len(relationships))})"
        params += list(relationships)
    if memories_only:
        extra += " AND n.kind = 'memory'"
    out: list[tuple[str, str, str, str | None, str, str, float]] = []
    sides = (("out", "target_id", "source_id"), ("in", "source_id", "target_id"))
    for side, far, near in sides:
        if direction not in (side, "both"):
            continue
        rows = conn.execute(
            "SELECT n.id, n.kind, n.name, n.memory_id, e.relationship, e.weight"
            f" FROM graph_edges e JOIN graph_nodes n ON n.id = e.{far}"
            f" WHERE e.{near} = ?{extra} ORDER BY e.id",
            [node_id, *params],
        )
        out += [(r[0], r[1], r[2], r[3], r[4], side, r[5]) for r in rows]
    return out


def node(conn: Connection, node_id: str) -> tuple[str, str, str] | None:
    """(id, kind, name) of a graph node, or None."""
    row = conn.execute("SELECT id, kind, name FROM graph_nodes WHERE id = ?", (node_id,)).fetchone()
    return None if row is None else (row[0], row[1], row[2])


def topic_nodes(conn: Connection, topic: str) -> list[str]:
    """Ids of the non-memory nodes for ``topic``: named so, or the file node of that path."""
    rows = conn.execute(
        "SELECT id FROM graph_nodes WHERE kind != 'memory' AND (id = ? OR id = ? OR name = ?)",
        (topic, f"file:{topic}", topic),
    )
    return [r[0] for r in rows]


def mentioning_memories(conn: Connection, flt: MemoryFilter, needle: str) -> list[str]:
    """Ids of the memories passing ``flt`` whose text, tags or metadata hold ``needle``
    (lower-case), literally."""
    d = dialect_of(conn)
    where, params = flt.where("m", d)
    held = " OR ".join(
        f"{d.position(f'lower(CAST(m.{column} AS TEXT))', '?')} > 0"
        for column in ("content", "tags", "metadata")
    )
    rows = conn.execute(
        f"SELECT m.id FROM memories m WHERE {where} AND ({held})",
        [*params, needle, needle, needle],
    )
    return [r[0] for r in rows]


def matching_memories(conn: Connection, flt: MemoryFilter, terms: Sequence[str]) -> list[str]:
    """Ids of the memories passing ``flt`` whose indexed text holds every one of ``terms``
    (stemmed, as the text index matches them)."""
    if not terms:
        return []
    d = dialect_of(conn)
    where, params = flt.where("m", d)
    if not d.has_fts5:
        sql = (
            "SELECT m.id FROM memories m"
            f" WHERE m.text_vector @@ plainto_tsquery('memlode_text', ?) AND {where}"
        )
        query = " ".join(terms)
    else:
        sql = (
            "SELECT m.id FROM memories_fts JOIN memories m ON m.rowid = memories_fts.rowid"
            f" WHERE memories_fts MATCH ? AND {where}"
        )
        query = " AND ".join('"' + t.replace('"', '""') + '"' for t in terms)
    return [r[0] for r in conn.execute(sql, [query, *params])]
