"""The ``sessions`` table on PostgreSQL (the counterpart of ``memlode.storage.sessions``;
Protocol ``SessionRows``). The summary and the metadata go through ``memlode.storage.scrub`` on
every write; metadata is jsonb."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.fastjson import dumps
from memlode.storage import scrub
from memlode.types import Session, format_ts, utcnow

if TYPE_CHECKING:
    from collections.abc import Sequence

    import psycopg

__all__ = [
    "SESSION_COLUMNS",
    "end",
    "fetch",
    "insert_exact",
    "list_sessions",
    "row_to_session",
    "set_summary",
    "start",
]

SESSION_COLUMNS = "id, namespace, source, started_at, ended_at, summary, metadata"


def row_to_session(row: Sequence[Any]) -> Session:
    """A row of ``SESSION_COLUMNS`` (metadata already decoded from jsonb)."""
    return Session(
        id=row[0],
        namespace=row[1],
        source=row[2],
        started_at=row[3],
        ended_at=row[4],
        summary=row[5],
        metadata=dict(row[6]),
    )


def start(
    conn: psycopg.Connection[Any],
    session_id: str,
    namespace: str,
    source: str,
    metadata: dict[str, Any] | None = None,
) -> tuple[Session, bool]:
    """Start a session, or resume it (clearing ended_at) if it exists. Returns (session, new)."""
    now = format_ts(utcnow())
    cur = conn.execute(
        "INSERT INTO sessions (id, namespace, source, started_at, metadata)"
        " VALUES (%s, %s, %s, %s, %s::jsonb) ON CONFLICT (id) DO NOTHING",
        (session_id, namespace, source, now, dumps(scrub.mapping(metadata), sort_keys=True)),
    )
    created = cur.rowcount > 0
    if not created:
        conn.execute("UPDATE sessions SET ended_at = NULL WHERE id = %s", (session_id,))
    session = fetch(conn, session_id)
    assert session is not None
    return session, created


def end(conn: psycopg.Connection[Any], session_id: str, summary: str | None) -> bool:
    now = format_ts(utcnow())
    cur = conn.execute(
        "UPDATE sessions SET ended_at = %s, summary = COALESCE(%s, summary) WHERE id = %s",
        (now, scrub.optional_text(summary), session_id),
    )
    return cur.rowcount > 0


def set_summary(
    conn: psycopg.Connection[Any],
    session_id: str,
    summary: str,
    *,
    only_if_empty: bool = False,
    limit: int | None = None,
) -> bool:
    """Set the session's summary (only where it has none, with ``only_if_empty``), cut to
    ``limit`` characters after redaction (a cut first could leave half a secret unrecognised)."""
    sql = "UPDATE sessions SET summary = %s WHERE id = %s"
    if only_if_empty:
        sql += " AND summary IS NULL"
    text = scrub.text(summary)
    return conn.execute(sql, (text[:limit] if limit else text, session_id)).rowcount > 0


def insert_exact(conn: psycopg.Connection[Any], session: Session) -> bool:
    """Insert a session with every field as given (import, a transcript's session); its text is
    redacted like any other write. False if the id exists (the stored row is left alone)."""
    cur = conn.execute(
        "INSERT INTO sessions (id, namespace, source, started_at, ended_at, summary, metadata)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s::jsonb) ON CONFLICT (id) DO NOTHING",
        (
            session.id,
            session.namespace,
            session.source,
            session.started_at,
            session.ended_at,
            scrub.optional_text(session.summary),
            dumps(scrub.mapping(session.metadata), sort_keys=True),
        ),
    )
    return cur.rowcount > 0


def fetch(conn: psycopg.Connection[Any], session_id: str) -> Session | None:
    row = conn.execute(
        f"SELECT {SESSION_COLUMNS} FROM sessions WHERE id = %s", (session_id,)
    ).fetchone()
    return row_to_session(row) if row is not None else None


def list_sessions(
    conn: psycopg.Connection[Any], namespace: str | None, limit: int = 50
) -> list[Session]:
    if namespace is None:
        rows = conn.execute(
            f"SELECT {SESSION_COLUMNS} FROM sessions ORDER BY started_at DESC, id LIMIT %s",
            (limit,),
        )
    else:
        rows = conn.execute(
            f"SELECT {SESSION_COLUMNS} FROM sessions WHERE namespace = %s"
            " ORDER BY started_at DESC, id LIMIT %s",
            (namespace, limit),
        )
    return [row_to_session(r) for r in rows]
