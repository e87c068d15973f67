"""The ids of the spooled hook events a resident has applied (``hook_events_applied``; SQLite
migration 0019, PostgreSQL 0007). One module for SQLite and PostgreSQL.

``claim`` is called inside the write transaction that also holds the rows of the event's
handler (``memlode.resident.hook_queue``): either both commit or neither does, so a line read
again after a crash (a resident killed between that commit and the spool's offset) is found
claimed and applied no second time.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from memlode.types import format_ts, utcnow

if TYPE_CHECKING:
    from memlode.storage.sql import Connection

__all__ = ["KEEP_DAYS", "claim", "is_applied", "prune"]

# A line can be read again only while it is in a spool, and a spool is emptied once a resident
# has applied it: days are ample. Kept 30 so that a laptop's spool from a long holiday, replayed
# by a resident that crashed mid-way, still finds its ids.
KEEP_DAYS = 30


def claim(conn: Connection, ident: str, event: str) -> bool:
    """Record ``ident`` as applied; False when it was already (the caller writes nothing)."""
    cursor = conn.execute(
        "INSERT INTO hook_events_applied (id, event, applied_at) VALUES (?, ?, ?)"
        " ON CONFLICT (id) DO NOTHING",
        (ident, event, format_ts(utcnow())),
    )
    return bool(cursor.rowcount)


def is_applied(conn: Connection, ident: str) -> bool:
    """Was ``ident`` applied (a read, outside any transaction)?"""
    row = conn.execute("SELECT 1 FROM hook_events_applied WHERE id = ?", (ident,)).fetchone()
    return row is not None


def prune(conn: Connection, keep_days: int = KEEP_DAYS) -> int:
    """Forget the ids applied more than ``keep_days`` ago; how many."""
    cutoff = format_ts(utcnow() - timedelta(days=keep_days))
    cursor = conn.execute("DELETE FROM hook_events_applied WHERE applied_at < ?", (cutoff,))
    return int(cursor.rowcount or 0)
