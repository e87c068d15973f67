"""What the hooks' injections read, on PostgreSQL (the counterpart of
``memlode.storage.briefing``; Protocol ``BriefingRows``): counts, recent session summaries, key
memories, open reflections, recent edits, file hotspots and strong patterns of one namespace;
the kept repo map; the command that came after a recalled failure.

SQLite's JSON and text rules are kept where they decide what is shown: ``json_extract`` of a
missing or null key is NULL (``_absent``), a strength is compared only when it is a number, and
LIKE ignores ASCII case (ILIKE here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.storage.briefing import EDIT_TOOLS, SESSION_MAP_KEY
from memlode.storage.postgres import store_settings

if TYPE_CHECKING:
    from collections.abc import Sequence

    import psycopg

__all__ = [
    "file_hotspots",
    "keep_session_map",
    "key_memories",
    "memory_command",
    "next_command",
    "open_reflections",
    "recent_edits",
    "recent_summaries",
    "session_count",
    "session_map",
    "strong_patterns",
    "type_counts",
]

_STRENGTH = (
    "(CASE WHEN jsonb_typeof(metadata -> 'strength') = 'number'"
    " THEN (metadata ->> 'strength')::double precision END)"
)


def _absent(key: str) -> str:
    """SQL true when ``metadata`` has no ``key`` or holds JSON null there (SQLite's
    ``json_extract(metadata, '$.key') IS NULL``)."""
    return f"coalesce(jsonb_typeof(metadata -> '{key}'), 'null') = 'null'"


def type_counts(conn: psycopg.Connection[Any], namespace: str) -> list[Any]:
    """(memory_type, count, latest created_at) of the namespace, most common type first."""
    return conn.execute(
        "SELECT memory_type, count(*), max(created_at) FROM memories WHERE namespace = %s"
        " GROUP BY 1 ORDER BY 2 DESC",
        (namespace,),
    ).fetchall()


def session_count(conn: psycopg.Connection[Any], namespace: str) -> int:
    row = conn.execute(
        "SELECT count(*) FROM sessions WHERE namespace = %s", (namespace,)
    ).fetchone()
    return int(row[0]) if row is not None else 0


def recent_summaries(
    conn: psycopg.Connection[Any], namespace: str, current_session: str, limit: int
) -> list[Any]:
    """(started_at, summary) of the latest other sessions that have a summary."""
    return conn.execute(
        "SELECT started_at, summary FROM sessions WHERE namespace = %s AND id <> %s"
        " AND summary IS NOT NULL AND summary <> '' ORDER BY started_at DESC LIMIT %s",
        (namespace, current_session, limit),
    ).fetchall()


def key_memories(
    conn: psycopg.Connection[Any],
    namespace: str,
    types: Sequence[str],
    capture_source: str,
    limit: int,
    derived_source: str = "",
) -> list[Any]:
    """(memory_type, content, created_at) of memories of ``types`` stored on purpose, or the
    user's own answers and approved plans among captured ones; never a compaction summary's
    chunks, nor what consolidation derived. Most important first."""
    return conn.execute(
        "SELECT memory_type, content, created_at FROM memories WHERE namespace = %s"
        " AND memory_type = ANY(%s) AND source <> %s"
        " AND (source <> %s OR metadata ->> 'tool' IN ('AskUserQuestion', 'ExitPlanMode'))"
        " AND coalesce(metadata ->> 'summary', '') <> 'compaction'"
        f" AND {_absent('pattern')}"
        " ORDER BY importance DESC, created_at DESC LIMIT %s",
        (namespace, list(types), derived_source, capture_source, limit),
    ).fetchall()


def open_reflections(
    conn: psycopg.Connection[Any],
    namespace: str,
    derived_source: str,
    open_tag: str,
    current_session: str,
    limit: int,
) -> list[Any]:
    """(content, created_at) of the latest reflection insights tagged ``open_tag`` of other
    sessions that no later insight stands for (what is still open), newest first."""
    return conn.execute(
        "SELECT m.content, m.created_at FROM memories AS m WHERE m.namespace = %s"
        " AND m.source = %s AND m.session_id IS DISTINCT FROM %s"
        " AND m.tags @> jsonb_build_array(%s::text)"
        " AND NOT EXISTS (SELECT 1 FROM memory_demotions AS d WHERE d.memory_id = m.id)"
        " ORDER BY m.created_at DESC LIMIT %s",
        (namespace, derived_source, current_session, open_tag, limit),
    ).fetchall()


def recent_edits(
    conn: psycopg.Connection[Any],
    namespace: str,
    capture_source: str,
    current_session: str,
    limit: int,
) -> list[Any]:
    """(content, created_at) of the latest captured edits of other sessions."""
    return conn.execute(
        "SELECT content, created_at FROM memories WHERE namespace = %s AND source = %s"
        " AND metadata ->> 'tool' = ANY(%s)"
        " AND session_id IS DISTINCT FROM %s ORDER BY created_at DESC LIMIT %s",
        (namespace, capture_source, list(EDIT_TOOLS), current_session, limit),
    ).fetchall()


def file_hotspots(
    conn: psycopg.Connection[Any], namespace: str, days: int, limit: int
) -> list[Any]:
    """(file name, edits, reads) of the files most worked on in the last ``days`` days
    (an edit counts three times a read)."""
    edits = "sum(CASE WHEN e.properties ->> 'action' = 'edit' THEN 1 ELSE 0 END)"
    return conn.execute(
        f"SELECT n.name, {edits},"
        " sum(CASE WHEN e.properties ->> 'action' = 'read' THEN 1 ELSE 0 END)"
        " FROM graph_edges e JOIN graph_nodes n ON n.id = e.target_id"
        " WHERE n.kind = 'file' AND n.namespace = %s AND e.relationship = 'RELATES_TO'"
        " AND e.created_at >= to_char((now() AT TIME ZONE 'utc') - make_interval(days => %s),"
        ' \'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\')'
        f" GROUP BY n.id ORDER BY 3 * {edits} + count(*) DESC, max(e.id) DESC LIMIT %s",
        (namespace, days, limit),
    ).fetchall()


def strong_patterns(
    conn: psycopg.Connection[Any],
    namespace: str,
    source: str,
    min_strength: float,
    limit: int,
    skip_kinds: Sequence[str] = (),
) -> list[Any]:
    """(content, strength) of the strongest patterns ``source`` (consolidation) detected in the
    namespace, at least ``min_strength`` strong and not of ``skip_kinds``; at most ``limit``."""
    return conn.execute(
        f"SELECT content, {_STRENGTH} FROM memories"
        f" WHERE namespace = %s AND source = %s AND NOT {_absent('pattern')}"
        " AND NOT (metadata ->> 'pattern' = ANY(%s))"
        f" AND {_STRENGTH} >= %s"
        f" ORDER BY {_STRENGTH} DESC, updated_at DESC LIMIT %s",
        (namespace, source, list(skip_kinds) or [""], min_strength, limit),
    ).fetchall()


def session_map(conn: psycopg.Connection[Any], namespace: str) -> str | None:
    """The repo map kept for the namespace's SessionStart, or None when none was kept."""
    return store_settings.get_setting(conn, SESSION_MAP_KEY.format(namespace=namespace))


def keep_session_map(conn: psycopg.Connection[Any], namespace: str, text: str) -> None:
    """Keep ``text`` as the namespace's SessionStart map (inside the caller's write)."""
    store_settings.put_setting(conn, SESSION_MAP_KEY.format(namespace=namespace), text)


def next_command(
    conn: psycopg.Connection[Any], memory_id: str, like: str, failure_tag: str
) -> tuple[str, str] | None:
    """(content, command) of the first observation after ``memory_id`` in its session whose
    command matches the LIKE pattern ``like`` (ASCII case ignored, as SQLite's LIKE does) and
    that is not tagged ``failure_tag``, or None."""
    row = conn.execute(
        "SELECT later.content, later.metadata ->> 'command' FROM memories AS m"
        " JOIN memories AS later ON later.session_id = m.session_id"
        " AND later.source = m.source AND later.rowid > m.rowid"
        " WHERE m.id = %s AND later.metadata ->> 'command' ILIKE %s ESCAPE '\\'"
        " AND NOT (later.tags @> jsonb_build_array(%s::text))"
        " ORDER BY later.rowid LIMIT 1",
        (memory_id, like, failure_tag),
    ).fetchone()
    return None if row is None else (str(row[0]), str(row[1]))


def memory_command(conn: psycopg.Connection[Any], memory_id: str) -> str | None:
    """The command an observation recorded (``metadata.command``), or None."""
    row = conn.execute(
        "SELECT metadata ->> 'command' FROM memories WHERE id = %s", (memory_id,)
    ).fetchone()
    return None if row is None or row[0] is None else str(row[0])
