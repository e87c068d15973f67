"""A session as passive capture keeps it, on PostgreSQL: its row, its summary, its capture state
(``session_seen``, ``session_files``); the counterpart of ``memlode.storage.capture_session``
(Protocol ``SessionCaptureRows``), with the same rules and limits."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.fastjson import dumps
from memlode.storage import scrub
from memlode.storage.capture_session import MAX_FILES, MAX_SEEN
from memlode.storage.fastpath import now_ts

if TYPE_CHECKING:
    from collections.abc import Mapping

    import psycopg

__all__ = [
    "end_session",
    "last_file_observation",
    "remember_file",
    "remember_seen",
    "session_memories",
    "session_metadata",
    "session_started_at",
    "set_session_summary",
    "start_session",
    "update_session_metadata",
]


def start_session(
    conn: psycopg.Connection[Any],
    session_id: str,
    namespace: str,
    source: str,
    metadata: Mapping[str, Any] | None = None,
) -> bool:
    """Start or resume (clear ``ended_at``) a session, merging ``metadata`` (an RFC 7396 merge
    patch, like SQLite's ``json_patch``); True when new."""
    changes = scrub.mapping(metadata) if metadata else None
    cur = conn.execute(
        "INSERT INTO sessions (id, namespace, source, started_at, metadata)"
        " VALUES (%s, %s, %s, %s, %s::jsonb) ON CONFLICT (id) DO NOTHING",
        (session_id, namespace, source, now_ts(), dumps(changes or {}, sort_keys=True)),
    )
    if cur.rowcount > 0:
        return True
    if changes:
        conn.execute(
            "UPDATE sessions SET ended_at = NULL,"
            " metadata = memlode_json_patch(metadata, %s::jsonb) WHERE id = %s",
            (dumps(changes, sort_keys=True), session_id),
        )
    else:
        conn.execute(
            "UPDATE sessions SET ended_at = NULL WHERE id = %s AND ended_at IS NOT NULL",
            (session_id,),
        )
    return False


def end_session(conn: psycopg.Connection[Any], session_id: str, summary: str | None) -> bool:
    """End the session, keeping its summary unless a new one is given."""
    cur = conn.execute(
        "UPDATE sessions SET ended_at = %s, summary = COALESCE(%s, summary) WHERE id = %s",
        (now_ts(), scrub.optional_text(summary), session_id),
    )
    return cur.rowcount > 0


def set_session_summary(conn: psycopg.Connection[Any], session_id: str, summary: str) -> bool:
    cur = conn.execute(
        "UPDATE sessions SET summary = %s WHERE id = %s", (scrub.text(summary), session_id)
    )
    return cur.rowcount > 0


def session_started_at(conn: psycopg.Connection[Any], session_id: str) -> str:
    """When the session started ("" when there is no such session)."""
    row = conn.execute("SELECT started_at FROM sessions WHERE id = %s", (session_id,)).fetchone()
    return str(row[0]) if row is not None else ""


def session_metadata(conn: psycopg.Connection[Any], session_id: str) -> dict[str, Any] | None:
    """The session's metadata object; None when there is no such session."""
    row = conn.execute("SELECT metadata FROM sessions WHERE id = %s", (session_id,)).fetchone()
    if row is None:
        return None
    return dict(row[0]) if isinstance(row[0], dict) else {}


def update_session_metadata(
    conn: psycopg.Connection[Any], session_id: str, changes: Mapping[str, Any]
) -> None:
    """Set top-level keys of the session's metadata (each value replaced whole)."""
    for key, value in scrub.mapping(changes).items():
        conn.execute(
            "UPDATE sessions SET metadata = jsonb_set(metadata, ARRAY[%s], %s::jsonb, true)"
            " WHERE id = %s",
            (key.replace('"', ""), dumps(value, sort_keys=True), session_id),
        )


def remember_seen(conn: psycopg.Connection[Any], session_id: str, memory_id: str) -> bool:
    """Note that ``memory_id`` was met again in the session, if another session stored it;
    True when noted now."""
    cur = conn.execute(
        "INSERT INTO session_seen (session_id, memory_id, seen_at)"
        " SELECT %s, id, %s FROM memories WHERE id = %s AND session_id IS DISTINCT FROM %s"
        " AND EXISTS (SELECT 1 FROM sessions WHERE id = %s)"
        " ON CONFLICT (session_id, memory_id) DO NOTHING",
        (session_id, now_ts(), memory_id, session_id, session_id),
    )
    return cur.rowcount > 0


def last_file_observation(conn: psycopg.Connection[Any], session_id: str, path: str) -> str | None:
    """The id of the session's last observation of the file at ``path``."""
    row = conn.execute(
        "SELECT memory_id FROM session_files WHERE session_id = %s AND path = %s",
        (session_id, path),
    ).fetchone()
    return str(row[0]) if row is not None else None


def remember_file(
    conn: psycopg.Connection[Any], session_id: str, path: str, memory_id: str
) -> None:
    """Make ``memory_id`` the session's last observation of ``path`` (at most ``MAX_FILES``
    files per session: the least recently observed one goes)."""
    cur = conn.execute(
        "INSERT INTO session_files (session_id, path, memory_id, updated_at)"
        " VALUES (%s, %s, %s, %s)"
        " ON CONFLICT (session_id, path) DO UPDATE SET memory_id = excluded.memory_id,"
        " updated_at = excluded.updated_at",
        (session_id, path, memory_id, now_ts()),
    )
    if cur.rowcount > 0:
        conn.execute(
            "DELETE FROM session_files WHERE session_id = %s AND path NOT IN (SELECT path FROM"
            " session_files WHERE session_id = %s ORDER BY updated_at DESC LIMIT %s)",
            (session_id, session_id, MAX_FILES),
        )


def session_memories(
    conn: psycopg.Connection[Any], session_id: str
) -> list[tuple[str, str, str, str, str]]:
    """(id, content, memory_type, tags, metadata) of the memories the session stored or met
    again, oldest first; tags and metadata as JSON text, as SQLite stores them."""
    rows = conn.execute(
        "SELECT id, content, memory_type, tags::text, metadata::text FROM memories"
        " WHERE session_id = %s OR id IN (SELECT memory_id FROM session_seen"
        " WHERE session_id = %s ORDER BY seen_at DESC LIMIT %s) ORDER BY created_at, id",
        (session_id, session_id, MAX_SEEN),
    ).fetchall()
    return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]
