"""A session as passive capture keeps it: its row, its summary, and its capture state.

The capture state is two tables (migration 0012), written a row at a time on the tool calls
that change them, never a JSON blob read and rewritten whole:

- ``session_seen``: memories stored by another session that this one met again (a Read of a
  file read yesterday deduplicates to yesterday's row); the session summary lists them too.
- ``session_files``: the last observation of each file in the session, from which the next
  edit of that file draws its EVOLVED_INTO edge.

One module for both backends (SQLite and PostgreSQL, ``memlode.storage.sql``). Import-light
like ``memlode.storage.capture`` (hooks call it on every tool call): the dialect is imported only
by the two writes that merge JSON, which a PostToolUse hook never makes.
``memlode.storage.sessions`` reads sessions back as ``Session`` objects for everyone else.
"""

from __future__ import annotations

from memlode.fastjson import dumps, loads
from memlode.storage import scrub
from memlode.storage.fastpath import now_ts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from memlode.storage.sql import Connection

__all__ = [
    "MAX_FILES",
    "MAX_SEEN",
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

# Files remembered per session (the last observation of each, for EVOLVED_INTO).
MAX_FILES = 300
# Memories of other sessions listed in a session's summary rows, newest first.
MAX_SEEN = 500


def start_session(
    conn: Connection,
    session_id: str,
    namespace: str,
    source: str,
    metadata: Mapping[str, Any] | None = None,
) -> bool:
    """Start or resume (clear ``ended_at``) a session, merging ``metadata`` (an RFC 7396 merge
    patch); True when new."""
    changes = scrub.mapping(metadata) if metadata else None
    cur = conn.execute(
        "INSERT INTO sessions (id, namespace, source, started_at, metadata)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
        (session_id, namespace, source, now_ts(), dumps(changes or {}, sort_keys=True)),
    )
    if cur.rowcount > 0:
        return True
    if changes:
        from memlode.storage.sql import dialect_of

        patched = dialect_of(conn).json_patch("metadata")
        conn.execute(
            f"UPDATE sessions SET ended_at = NULL, metadata = {patched} WHERE id = ?",
            (dumps(changes, sort_keys=True), session_id),
        )
    else:
        conn.execute(
            "UPDATE sessions SET ended_at = NULL WHERE id = ? AND ended_at IS NOT NULL",
            (session_id,),
        )
    return False


def end_session(conn: Connection, session_id: str, summary: str | None) -> bool:
    """End the session, keeping its summary unless a new one is given."""
    cur = conn.execute(
        "UPDATE sessions SET ended_at = ?, summary = COALESCE(?, summary) WHERE id = ?",
        (now_ts(), scrub.optional_text(summary), session_id),
    )
    return int(cur.rowcount) > 0


def set_session_summary(conn: Connection, session_id: str, summary: str) -> bool:
    cur = conn.execute(
        "UPDATE sessions SET summary = ? WHERE id = ?", (scrub.text(summary), session_id)
    )
    return int(cur.rowcount) > 0


def session_started_at(conn: Connection, session_id: str) -> str:
    """When the session started ("" when there is no such session)."""
    row = conn.execute("SELECT started_at FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return str(row[0]) if row is not None else ""


def session_metadata(conn: Connection, session_id: str) -> dict[str, Any] | None:
    """The session's metadata object; None when there is no such session."""
    row = conn.execute("SELECT metadata FROM sessions WHERE id = ?", (session_id,)).fetchone()
    if row is None:
        return None
    try:
        value = loads(row[0])
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def update_session_metadata(conn: Connection, session_id: str, changes: Mapping[str, Any]) -> None:
    """Set top-level keys of the session's metadata (each value replaced whole)."""
    from memlode.storage.sql import dialect_of

    sql = f"UPDATE sessions SET metadata = {dialect_of(conn).json_set_key('metadata')} WHERE id = ?"
    for key, value in scrub.mapping(changes).items():
        conn.execute(sql, (key.replace('"', ""), dumps(value, sort_keys=True), session_id))


def remember_seen(conn: Connection, session_id: str, memory_id: str) -> bool:
    """Note that ``memory_id`` was met again in the session, if another session stored it;
    True when noted now."""
    cur = conn.execute(
        "INSERT INTO session_seen (session_id, memory_id, seen_at)"
        " SELECT ?, id, ? FROM memories WHERE id = ? AND (session_id IS NULL OR session_id <> ?)"
        " AND EXISTS (SELECT 1 FROM sessions WHERE id = ?)"
        " ON CONFLICT (session_id, memory_id) DO NOTHING",
        (session_id, now_ts(), memory_id, session_id, session_id),
    )
    return int(cur.rowcount) > 0


def last_file_observation(conn: Connection, session_id: str, path: str) -> str | None:
    """The id of the session's last observation of the file at ``path``."""
    row = conn.execute(
        "SELECT memory_id FROM session_files WHERE session_id = ? AND path = ?",
        (session_id, path),
    ).fetchone()
    return str(row[0]) if row is not None else None


def remember_file(conn: Connection, session_id: str, path: str, memory_id: str) -> None:
    """Make ``memory_id`` the session's last observation of ``path`` (at most ``MAX_FILES``
    files per session: the least recently observed one goes)."""
    now = now_ts()
    cur = conn.execute(
        "INSERT INTO session_files (session_id, path, memory_id, updated_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (session_id, path) DO UPDATE SET memory_id = excluded.memory_id,"
        " updated_at = excluded.updated_at",
        (session_id, path, memory_id, now),
    )
    if cur.rowcount > 0:
        conn.execute(
            "DELETE FROM session_files WHERE session_id = ? AND path NOT IN (SELECT path FROM"
            " session_files WHERE session_id = ? ORDER BY updated_at DESC LIMIT ?)",
            (session_id, session_id, MAX_FILES),
        )


def session_memories(conn: Connection, session_id: str) -> list[tuple[str, str, str, str, str]]:
    """(id, content, memory_type, tags, metadata) of the memories the session stored or met
    again, oldest first."""
    rows = conn.execute(
        "SELECT id, content, memory_type, tags, metadata FROM memories WHERE session_id = ?"
        " OR id IN (SELECT memory_id FROM session_seen WHERE session_id = ?"
        " ORDER BY seen_at DESC LIMIT ?) ORDER BY created_at, id",
        (session_id, session_id, MAX_SEEN),
    ).fetchall()
    return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]
