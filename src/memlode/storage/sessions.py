"""The ``sessions`` table: one row per assistant session (or CLI session)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from memlode.types import Session, format_ts, utcnow

__all__ = ["end", "fetch", "list_sessions", "row_to_session", "start"]


def row_to_session(row: sqlite3.Row) -> Session:
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
    conn: sqlite3.Connection,
    session_id: str,
    namespace: str,
    source: str,
    metadata: dict[str, Any] | None = None,
) -> tuple[Session, bool]:
    """Start a session, or resume it (clearing ended_at) if it exists. Returns (session, new)."""
    now = format_ts(utcnow())
    cur = conn.execute(
        "INSERT OR IGNORE INTO sessions (id, namespace, source, started_at, metadata)"
        " VALUES (?, ?, ?, ?, ?)",
        (session_id, namespace, source, now, json.dumps(metadata or {}, sort_keys=True)),
    )
    created = cur.rowcount > 0
    if not created:
        conn.execute("UPDATE sessions SET ended_at = NULL WHERE id = ?", (session_id,))
    session = fetch(conn, session_id)
    assert session is not None
    return session, created


def end(conn: sqlite3.Connection, session_id: str, summary: str | None) -> bool:
    now = format_ts(utcnow())
    cur = conn.execute(
        "UPDATE sessions SET ended_at = ?, summary = COALESCE(?, summary) WHERE id = ?",
        (now, summary, session_id),
    )
    return cur.rowcount > 0


def fetch(conn: sqlite3.Connection, session_id: str) -> Session | None:
    row = conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return row_to_session(row) if row is not None else None


def list_sessions(
    conn: sqlite3.Connection, namespace: str | None, limit: int = 50
) -> list[Session]:
    if namespace is None:
        rows = conn.execute("SELECT * FROM sessions ORDER BY started_at DESC, id LIMIT ?", (limit,))
    else:
        rows = conn.execute(
            "SELECT * FROM sessions WHERE namespace = ? ORDER BY started_at DESC, id LIMIT ?",
            (namespace, limit),
        )
    return [row_to_session(r) for r in rows]
