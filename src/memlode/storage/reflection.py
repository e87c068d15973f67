"""The rows the reflect cycle reads and keeps: the sessions it may reflect on, each session's
stored rows, its records (``consolidation_clusters`` rows of kind ``reflection:<kind>``) and
whether a session ended since it last ran.

Parameters in, plain rows out; what the cycle makes of them is
``memlode.engine.consolidation.reflect``'s. Insights are memories like any other and are
written through ``storage.memories``; their demotions through ``storage.consolidation``.
Serves both backends (``memlode.storage.sql``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memlode.storage.sql import Connection

__all__ = [
    "REFLECTION_KIND",
    "drop_record",
    "reflection_records",
    "session_evidence",
    "sessions_ended_since",
    "sessions_to_reflect",
]

# consolidation_clusters.kind of a reflection record: 'reflection:decision', ...
REFLECTION_KIND = "reflection:"


def sessions_to_reflect(conn: Connection, namespace: str, idle_before: str) -> list[Any]:
    """(id, started_at, ended_at, last activity) of the namespace's sessions that ended, or
    whose latest stored row is older than ``idle_before``, oldest first."""
    rows: list[Any] = conn.execute(
        "SELECT s.id, s.started_at, s.ended_at, a.last FROM sessions AS s"
        " LEFT JOIN (SELECT session_id, max(created_at) AS last FROM memories"
        "  WHERE namespace = ? AND session_id IS NOT NULL GROUP BY session_id) AS a"
        " ON a.session_id = s.id"
        " WHERE s.namespace = ? AND (s.ended_at IS NOT NULL OR a.last < ?)"
        " ORDER BY coalesce(s.ended_at, a.last, s.started_at), s.id",
        (namespace, namespace, idle_before),
    ).fetchall()
    return rows


def session_evidence(
    conn: Connection, namespace: str, session_id: str, exclude_source: str
) -> list[Any]:
    """(id, content, memory_type, source, tags, metadata, created_at) of the session's rows
    in the namespace, not of ``exclude_source`` (what consolidation wrote), oldest first."""
    rows: list[Any] = conn.execute(
        "SELECT id, content, memory_type, source, tags, metadata, created_at FROM memories"
        " WHERE namespace = ? AND session_id = ? AND source != ? ORDER BY created_at, rowid",
        (namespace, session_id, exclude_source),
    ).fetchall()
    return rows


def reflection_records(conn: Connection, namespace: str) -> list[Any]:
    """(kind, key, insight id, members hash, the id of what stands for the insight or None)
    of the namespace's reflection records."""
    rows: list[Any] = conn.execute(
        "SELECT c.kind, c.key, c.summary_id, c.members,"
        " (SELECT d.summary_id FROM memory_demotions AS d WHERE d.memory_id = c.summary_id)"
        " FROM consolidation_clusters AS c"
        f" WHERE c.namespace = ? AND substr(c.kind, 1, {len(REFLECTION_KIND)}) = ?"
        " ORDER BY c.key",
        (namespace, REFLECTION_KIND),
    ).fetchall()
    return rows


def drop_record(conn: Connection, namespace: str, kind: str, key: str) -> None:
    """Forget one record (its insight now stands under another kind)."""
    conn.execute(
        "DELETE FROM consolidation_clusters WHERE namespace = ? AND kind = ? AND key = ?",
        (namespace, kind, key),
    )


def sessions_ended_since(conn: Connection, kind: str) -> int:
    """How many sessions ended after the start of the latest finished ``kind`` run (all ended
    sessions if none finished): a count over the sessions table (a row per session), cheap
    enough to ask every minute."""
    row = conn.execute(
        "SELECT started_at FROM consolidation_log WHERE kind = ? AND finished_at IS NOT NULL"
        " ORDER BY id DESC LIMIT 1",
        (kind,),
    ).fetchone()
    since = "" if row is None else str(row[0])
    found = conn.execute(
        "SELECT count(*) FROM sessions WHERE ended_at IS NOT NULL AND ended_at > ?", (since,)
    ).fetchone()
    return int(found[0])
