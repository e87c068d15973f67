"""The rows the reflect cycle reads and keeps, on PostgreSQL (the counterpart of
``memlode.storage.reflection``; Protocol ``ReflectionRows``): the sessions it may reflect on,
each session's stored rows (tags and metadata as JSON text), its records and whether a session
ended since it last ran."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.storage.reflection import REFLECTION_KIND

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "drop_record",
    "reflection_records",
    "session_evidence",
    "sessions_ended_since",
    "sessions_to_reflect",
]


def sessions_to_reflect(
    conn: psycopg.Connection[Any], namespace: str, idle_before: str
) -> list[Any]:
    """(id, started_at, ended_at, last activity) of the namespace's sessions that ended, or
    whose latest stored row is older than ``idle_before``, oldest first."""
    return conn.execute(
        "SELECT s.id, s.started_at, s.ended_at, a.last FROM sessions AS s"
        " LEFT JOIN (SELECT session_id, max(created_at) AS last FROM memories"
        "  WHERE namespace = %s AND session_id IS NOT NULL GROUP BY session_id) AS a"
        " ON a.session_id = s.id"
        " WHERE s.namespace = %s AND (s.ended_at IS NOT NULL OR a.last < %s)"
        " ORDER BY coalesce(s.ended_at, a.last, s.started_at), s.id",
        (namespace, namespace, idle_before),
    ).fetchall()


def session_evidence(
    conn: psycopg.Connection[Any], namespace: str, session_id: str, exclude_source: str
) -> list[Any]:
    """(id, content, memory_type, source, tags, metadata, created_at) of the session's rows
    in the namespace, not of ``exclude_source`` (what consolidation wrote), oldest first."""
    return conn.execute(
        "SELECT id, content, memory_type, source, tags::text AS tags,"
        " metadata::text AS metadata, created_at FROM memories"
        " WHERE namespace = %s AND session_id = %s AND source <> %s ORDER BY created_at, rowid",
        (namespace, session_id, exclude_source),
    ).fetchall()


def reflection_records(conn: psycopg.Connection[Any], namespace: str) -> list[Any]:
    """(kind, key, insight id, members hash, the id of what stands for the insight or None)
    of the namespace's reflection records."""
    return conn.execute(
        "SELECT c.kind, c.key, c.summary_id, c.members,"
        " (SELECT d.summary_id FROM memory_demotions AS d WHERE d.memory_id = c.summary_id)"
        " FROM consolidation_clusters AS c"
        " WHERE c.namespace = %s AND left(c.kind, %s) = %s ORDER BY c.key",
        (namespace, len(REFLECTION_KIND), REFLECTION_KIND),
    ).fetchall()


def drop_record(conn: psycopg.Connection[Any], namespace: str, kind: str, key: str) -> None:
    """Forget one record (its insight now stands under another kind)."""
    conn.execute(
        "DELETE FROM consolidation_clusters WHERE namespace = %s AND kind = %s AND key = %s",
        (namespace, kind, key),
    )


def sessions_ended_since(conn: psycopg.Connection[Any], kind: str) -> int:
    """How many sessions ended after the start of the latest finished ``kind`` run (all ended
    sessions if none finished)."""
    row = conn.execute(
        "SELECT started_at FROM consolidation_log WHERE kind = %s AND finished_at IS NOT NULL"
        " ORDER BY id DESC LIMIT 1",
        (kind,),
    ).fetchone()
    since = "" if row is None else str(row[0])
    found = conn.execute(
        "SELECT count(*) FROM sessions WHERE ended_at IS NOT NULL AND ended_at > %s", (since,)
    ).fetchone()
    return int(found[0]) if found is not None else 0
