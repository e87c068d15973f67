"""The rows the patterns cycle reads beyond the hooks' observations: the decisions a chain of
edits is linked to, and the pattern memories it stored (for ``memlode patterns`` and the
``pattern_insights`` tool).

Parameters in, plain rows out; what a pattern is and how strong is
``memlode.engine.consolidation.patterns``'. A pattern memory is one whose metadata has a
``pattern`` key (its kind): the hooks also store memories of type ``pattern`` (searches), so the
type alone does not tell. Serves both backends (``memlode.storage.sql``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.storage.sql import dialect_of

if TYPE_CHECKING:
    from memlode.storage.sql import Connection

__all__ = ["decision_rows", "seen_rows", "stored_patterns"]


def decision_rows(conn: Connection, namespace: str, exclude_source: str) -> list[Any]:
    """(id, content, session_id, created_at) of the namespace's decisions not written by
    ``exclude_source``, oldest first."""
    rows: list[Any] = conn.execute(
        "SELECT id, content, session_id, created_at FROM memories WHERE namespace = ?"
        " AND memory_type = 'decision' AND source != ? ORDER BY created_at, rowid",
        (namespace, exclude_source),
    ).fetchall()
    return rows


def seen_rows(conn: Connection, namespace: str, source: str) -> list[Any]:
    """(memory id, session id) of the namespace's memories from ``source`` met again in other
    sessions (``session_seen``: the hooks store a repeated observation or prompt once)."""
    rows: list[Any] = conn.execute(
        "SELECT s.memory_id, s.session_id FROM session_seen AS s"
        " JOIN memories AS m ON m.id = s.memory_id WHERE m.namespace = ? AND m.source = ?"
        " ORDER BY s.seen_at, s.session_id",
        (namespace, source),
    ).fetchall()
    return rows


def stored_patterns(
    conn: Connection,
    namespace: str | None,
    source: str,
    kind: str | None,
    min_strength: float,
    limit: int,
) -> list[Any]:
    """(id, namespace, memory_type, content, metadata, created_at, updated_at) of the pattern
    memories of ``namespace`` (None: every namespace) written by ``source``, of ``kind`` (None:
    any) and at least ``min_strength`` strong; strongest first."""
    d = dialect_of(conn)
    pattern = d.json_text("metadata", "pattern")
    strength = d.json_number("metadata", "strength")
    sql = (
        "SELECT id, namespace, memory_type, content, metadata, created_at, updated_at"
        f" FROM memories WHERE source = ? AND {pattern} IS NOT NULL"
        f" AND coalesce({strength}, 0) >= ?"
    )
    params: list[Any] = [source, min_strength]
    if namespace is not None:
        sql += " AND namespace = ?"
        params.append(namespace)
    if kind is not None:
        sql += f" AND {pattern} = ?"
        params.append(kind)
    sql += f" ORDER BY {strength} DESC NULLS LAST, updated_at DESC, id LIMIT ?"
    params.append(limit)
    rows: list[Any] = conn.execute(sql, params).fetchall()
    return rows
