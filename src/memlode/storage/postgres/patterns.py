"""The rows the patterns cycle reads beyond the hooks' observations, on PostgreSQL (the
counterpart of ``memlode.storage.patterns``; Protocol ``PatternRows``). A pattern memory is one
whose metadata has a non-null ``pattern`` key; metadata comes back as JSON text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

__all__ = ["decision_rows", "seen_rows", "stored_patterns"]

# json_extract(metadata, '$.strength') as SQLite reads it: a number, else NULL (a string that
# is not a number would fail a cast)
_STRENGTH = (
    "(CASE WHEN jsonb_typeof(metadata -> 'strength') = 'number'"
    " THEN (metadata ->> 'strength')::double precision END)"
)


def decision_rows(conn: psycopg.Connection[Any], namespace: str, exclude_source: str) -> list[Any]:
    """(id, content, session_id, created_at) of the namespace's decisions not written by
    ``exclude_source``, oldest first."""
    return conn.execute(
        "SELECT id, content, session_id, created_at FROM memories WHERE namespace = %s"
        " AND memory_type = 'decision' AND source <> %s ORDER BY created_at, rowid",
        (namespace, exclude_source),
    ).fetchall()


def seen_rows(conn: psycopg.Connection[Any], namespace: str, source: str) -> list[Any]:
    """(memory id, session id) of the namespace's memories from ``source`` met again in other
    sessions (``session_seen``)."""
    return conn.execute(
        "SELECT s.memory_id, s.session_id FROM session_seen AS s"
        " JOIN memories AS m ON m.id = s.memory_id WHERE m.namespace = %s AND m.source = %s"
        " ORDER BY s.seen_at, s.session_id",
        (namespace, source),
    ).fetchall()


def stored_patterns(
    conn: psycopg.Connection[Any],
    namespace: str | None,
    source: str,
    kind: str | None,
    min_strength: float,
    limit: int,
) -> list[Any]:
    """(id, namespace, memory_type, content, metadata, created_at, updated_at) of the pattern
    memories of ``namespace`` (None: every namespace) written by ``source``, of ``kind`` (None:
    any) and at least ``min_strength`` strong; strongest first."""
    sql = (
        "SELECT id, namespace, memory_type, content, metadata::text AS metadata, created_at,"
        " updated_at FROM memories WHERE source = %s"
        " AND coalesce(jsonb_typeof(metadata -> 'pattern'), 'null') <> 'null'"
        f" AND coalesce({_STRENGTH}, 0) >= %s"
    )
    params: list[Any] = [source, min_strength]
    if namespace is not None:
        sql += " AND namespace = %s"
        params.append(namespace)
    if kind is not None:
        sql += " AND metadata ->> 'pattern' = %s"
        params.append(kind)
    sql += f" ORDER BY {_STRENGTH} DESC NULLS LAST, updated_at DESC, id LIMIT %s"
    params.append(limit)
    return conn.execute(sql, params).fetchall()
