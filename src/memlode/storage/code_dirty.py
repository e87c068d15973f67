"""Files edited through the assistant and not yet re-indexed: the ``code_dirty`` table.

The PostToolUse hook calls :func:`mark` inside the transaction that stores an edit's
observation, so marking costs one statement and no import beyond this module's (it is
import-light, like ``memlode.storage.capture``). The resident process reads the marks
(:func:`pending`), re-indexes what lies in an indexed project and then :func:`clear` s the marks
it read, leaving any that a later edit bumped meanwhile.
"""

from __future__ import annotations

from memlode.storage.fastpath import now_ts

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Sequence

__all__ = ["Mark", "clear", "mark", "pending"]

# (absolute path, time of the last edit, count of edits)
Mark = tuple[str, str, int]


def mark(conn: sqlite3.Connection, path: str) -> None:
    """Record that ``path`` was just edited (inside the caller's transaction)."""
    conn.execute(
        "INSERT INTO code_dirty (path, marked_at) VALUES (?, ?)"
        " ON CONFLICT (path) DO UPDATE SET marked_at = excluded.marked_at, marks = marks + 1",
        (path, now_ts()),
    )


def pending(conn: sqlite3.Connection) -> list[Mark]:
    """Every mark, oldest edit first."""
    rows = conn.execute("SELECT path, marked_at, marks FROM code_dirty ORDER BY marked_at, path")
    return [(str(r[0]), str(r[1]), int(r[2])) for r in rows]


def clear(conn: sqlite3.Connection, marks: Sequence[Mark]) -> None:
    """Delete the given marks unless the file was marked again since they were read."""
    conn.executemany(
        "DELETE FROM code_dirty WHERE path = ? AND marks = ?", [(p, n) for p, _, n in marks]
    )
