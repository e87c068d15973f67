"""The change log of the text index on PostgreSQL (``memories_fts_log``, kept by the trigger of
migration 0001): which rows changed since a sequence number (the counterpart of
``memlode.storage.fts_log``; Protocol ``TextLogRows``).

Not yet safe under concurrent writers: a sequence number is taken when a row is written, not
when its transaction commits, so a reader that caught up to number 11 while the transaction
holding 10 was still open never sees 10. SQLite serialises writers, so its log has no such hole;
here a reader must stay behind the oldest open writer (``pg_snapshot_xmin``) before the
resident's text index can follow this log (issue #21).
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
