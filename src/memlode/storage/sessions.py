"""The ``sessions`` table: one row per assistant session (or CLI session), on SQLite and on
PostgreSQL alike.

The summary and the metadata go through ``memlode.storage.scrub`` on every write.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from memlode.storage import scrub
from memlode.types import Session, format_ts, utcnow

if TYPE_CHECKING:
    from memlode.storage.sql import Connection, Row

__all__ = [
    "end",
    "fetch",
    "insert_exact",
    "list_sessions",
    "row_to_session",
    "set_summary",
    "start",
]


def row_to_session(row: Row) -> Session:
    return Session(
        id=row["id"],
        namespace=row["namespace"],
        source=row["source"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        summary=row["summary"],
        metadata=json.loads(row["metadata"]),
    )


def start(
    conn: Connection,
    session_id: str,
    namespace: str,
    source: str,
    metadata: dict[str, Any] | None = None,
) -> tuple[Session, bool]:
    """Start a session, or resume it (clearing ended_at) if it exists. Returns (session, new)."""
    now = format_ts(utcnow())
    cur = conn.execute(
        "INSERT INTO sessions (id, namespace, source, started_at, metadata)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
        (session_id, namespace, source, now, json.dumps(scrub.mapping(metadata), sort_keys=True)),
    )
    created = cur.rowcount > 0
    if not created:
        conn.execute("UPDATE sessions SET ended_at = NULL WHERE id = ?", (session_id,))
    session = fetch(conn, session_id)
    assert session is not None
    return session, created


def end(conn: Connection, session_id: str, summary: str | None) -> bool:
    now = format_ts(utcnow())
    cur = conn.execute(
        "UPDATE sessions SET ended_at = ?, summary = COALESCE(?, summary) WHERE id = ?",
        (now, scrub.optional_text(summary), session_id),
    )
    return int(cur.rowcount) > 0


def set_summary(
    conn: Connection,
    session_id: str,
    summary: str,
    *,
    only_if_empty: bool = False,
    limit: int | None = None,
) -> bool:
    """Set the session's summary (only where it has none, with ``only_if_empty``), cut to
    ``limit`` characters after redaction (a cut first could leave half a secret unrecognised)."""
    sql = "UPDATE sessions SET summary = ? WHERE id = ?"
    if only_if_empty:
        sql += " AND summary IS NULL"
    text = scrub.text(summary)
    cur = conn.execute(sql, (text[:limit] if limit else text, session_id))
    return int(cur.rowcount) > 0


def insert_exact(conn: Connection, session: Session) -> bool:
    """Insert a session with every field as given (import, a transcript's session); its text is
    redacted like any other write. False if the id exists (the stored row is left alone)."""
    cur = conn.execute(
        "INSERT INTO sessions (id, namespace, source, started_at, ended_at, summary, metadata)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
        (
            session.id,
            session.namespace,
            session.source,
            session.started_at,
            session.ended_at,
            scrub.optional_text(session.summary),
            json.dumps(scrub.mapping(session.metadata), sort_keys=True),
        ),
    )
    return int(cur.rowcount) > 0


def fetch(conn: Connection, session_id: str) -> Session | None:
    row = conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return row_to_session(row) if row is not None else None


def list_sessions(conn: Connection, namespace: str | None, limit: int = 50) -> list[Session]:
    if namespace is None:
        rows = conn.execute("SELECT * FROM sessions ORDER BY started_at DESC, id LIMIT ?", (limit,))
    else:
        rows = conn.execute(
            "SELECT * FROM sessions WHERE namespace = ? ORDER BY started_at DESC, id LIMIT ?",
            (namespace, limit),
        )
    return [row_to_session(r) for r in rows]


def all_sessions(conn: Connection, namespace: str | None) -> list[Session]:
    """Every session of ``namespace`` (None: of every namespace), oldest first (for export)."""
    if namespace is None:
        rows = conn.execute("SELECT * FROM sessions ORDER BY started_at, id")
    else:
        rows = conn.execute(
            "SELECT * FROM sessions WHERE namespace = ? ORDER BY started_at, id", (namespace,)
        )
    return [row_to_session(r) for r in rows.fetchall()]
