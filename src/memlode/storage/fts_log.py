"""The change log of the text index (``memories_fts_log``; SQLite migration 0007, kept by a
trigger on PostgreSQL too): which rows changed since a sequence number, so that an in-memory copy
of the index (``memlode.search.text_index``) applies only those instead of reading everything
again. One module for SQLite and PostgreSQL.

On PostgreSQL the sequence numbers are in commit order because writers take turns (migration
0006): a change is numbered while its transaction holds the store's write lock, so no transaction
can commit a smaller number after a reader has seen a larger one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memlode.storage.sql import Connection

__all__ = ["changed_rowids", "oldest_seq"]


def oldest_seq(conn: Connection) -> int | None:
    """The oldest sequence number still in the log (None when it is empty)."""
    value = conn.execute("SELECT min(seq) FROM memories_fts_log").fetchone()[0]
    return None if value is None else int(value)


def changed_rowids(conn: Connection, after: int, upto: int, limit: int) -> list[int]:
    """Up to ``limit`` distinct rows changed in (``after``, ``upto``]."""
    return [
        int(r)
        for (r,) in conn.execute(
            "SELECT DISTINCT row FROM memories_fts_log WHERE seq > ? AND seq <= ? LIMIT ?",
            (after, upto, limit),
        )
    ]
