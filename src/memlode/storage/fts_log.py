"""The change log of the FTS index (``memories_fts_log``, migration 0007): which rows changed
since a sequence number, so that an in-memory copy of the index (``memlode.search.text_index``)
applies only those instead of reading everything again."""

from __future__ import annotations

import sqlite3

__all__ = ["changed_rowids", "oldest_seq"]


def oldest_seq(conn: sqlite3.Connection) -> int | None:
    """The oldest sequence number still in the log (None when it is empty)."""
    value = conn.execute("SELECT min(seq) FROM memories_fts_log").fetchone()[0]
    return None if value is None else int(value)


def changed_rowids(conn: sqlite3.Connection, after: int, upto: int, limit: int) -> list[int]:
    """Up to ``limit`` distinct rows changed in (``after``, ``upto``]."""
    return [
        int(r)
        for (r,) in conn.execute(
            "SELECT DISTINCT row FROM memories_fts_log WHERE seq > ? AND seq <= ? LIMIT ?",
            (after, upto, limit),
        )
    ]
