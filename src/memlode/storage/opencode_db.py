"""OpenCode's database (``opencode.db``), read-only: the rows of its sessions.

memlode never writes it; ``memlode.sources.transcript_opencode`` turns the rows into a
transcript. The shape (OpenCode 1.18: tables ``session``, ``message``, ``part``, JSON in
``data``) is described there. Opened with ``mode=ro`` (which still reads OpenCode's WAL).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memlode.errors import InvalidInput

__all__ = ["connect", "is_database", "message_rows", "part_rows", "session_ids", "session_row",
           "session_version", "table_names"]  # fmt: skip

_SQLITE_MAGIC = b"SQLite format 3\x00"
TABLES = frozenset({"session", "message", "part"})
# How long a read waits for OpenCode's own write to finish (it holds the WAL writer lock).
_BUSY_TIMEOUT_S = 5.0


def _connect(db: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=_BUSY_TIMEOUT_S)
    conn.execute("PRAGMA query_only = 1")
    return conn


def table_names(conn: sqlite3.Connection) -> set[str]:
    return {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master")}


def is_database(path: Path) -> bool:
    """Whether ``path`` is an SQLite database with OpenCode's session tables."""
    try:
        with path.open("rb") as fh:
            if fh.read(len(_SQLITE_MAGIC)) != _SQLITE_MAGIC:
                return False
        conn = _connect(path)
        try:
            names = table_names(conn)
        finally:
            conn.close()
    except (OSError, sqlite3.Error):
        return False
    return names >= TABLES


@contextmanager
def connect(db: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to OpenCode's database; what was wrong said in memlode's terms."""
    try:
        conn = _connect(db)
    except sqlite3.Error as exc:
        raise InvalidInput(f"cannot read OpenCode's database {db}: {exc}") from None
    try:
        try:
            names = table_names(conn)
        except sqlite3.Error as exc:
            raise InvalidInput(f"cannot read OpenCode's database {db}: {exc}") from None
        if not names >= TABLES:
            raise InvalidInput(f"{db} is not OpenCode's database (no session tables)")
        yield conn
    finally:
        conn.close()


def session_ids(conn: sqlite3.Connection) -> list[str]:
    """Every session's id, oldest first."""
    rows = conn.execute("SELECT id FROM session ORDER BY time_created, id").fetchall()
    return [str(r[0]) for r in rows]


def session_row(conn: sqlite3.Connection, session_id: str) -> sqlite3.Row | None:
    conn.row_factory = sqlite3.Row
    row: sqlite3.Row | None = conn.execute(
        "SELECT directory, title, revert, time_updated FROM session WHERE id = ?", (session_id,)
    ).fetchone()
    return row


def session_version(conn: sqlite3.Connection, session_id: str) -> tuple[int, int]:
    """(rows of the session's messages and parts, their latest ``time_updated`` in ms)."""
    rows, updated = 0, 0
    for table in ("message", "part"):
        count, latest = conn.execute(
            f'SELECT count(*), max(time_updated) FROM "{table}" WHERE session_id = ?',
            (session_id,),
        ).fetchone()
        rows += int(count)
        updated = max(updated, int(latest or 0))
    return rows, updated


def message_rows(conn: sqlite3.Connection, session_id: str) -> list[tuple[str, object, object]]:
    """(id, time_created, data) of the session's messages in order."""
    return [
        (str(i), created, data)
        for i, created, data in conn.execute(
            "SELECT id, time_created, data FROM message WHERE session_id = ? "
            "ORDER BY time_created, id",
            (session_id,),
        )
    ]


def part_rows(conn: sqlite3.Connection, session_id: str) -> list[tuple[str, str, object]]:
    """(id, message id, data) of the session's parts, by message, in order."""
    return [
        (str(i), str(message), data)
        for i, message, data in conn.execute(
            "SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id",
            (session_id,),
        )
    ]
