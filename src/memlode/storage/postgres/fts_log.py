"""The change log of the text index on PostgreSQL (``memories_fts_log``, kept by the trigger of
migration 0001): which rows changed since a sequence number (the counterpart of
``memlode.storage.fts_log``; Protocol ``TextLogRows``).

Its sequence numbers are in commit order because writers take turns (migration 0006): a change
is numbered while its transaction holds the store's write lock, so no transaction can commit a
smaller number after a reader has seen a larger one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

__all__ = ["changed_rowids", "oldest_seq"]


def oldest_seq(conn: psycopg.Connection[Any]) -> int | None:
    """The oldest sequence number still in the log (None when it is empty)."""
    row = conn.execute("SELECT min(seq) FROM memories_fts_log").fetchone()
    return None if row is None or row[0] is None else int(row[0])


def changed_rowids(conn: psycopg.Connection[Any], after: int, upto: int, limit: int) -> list[int]:
    """Up to ``limit`` distinct rows changed in (``after``, ``upto``]."""
    rows = conn.execute(
        "SELECT DISTINCT row FROM memories_fts_log WHERE seq > %s AND seq <= %s LIMIT %s",
        (after, upto, limit),
    ).fetchall()
    return [int(r[0]) for r in rows]
