"""What hybrid recall reads of its candidates by primary key: the columns it scores on (with
whether the text ends in a question mark), and the stored token states for late interaction.
Both read by id in chunks, never by scanning: recall calls these on every query. Serves SQLite
and PostgreSQL alike.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from memlode.storage.sql import dialect_of

if TYPE_CHECKING:
    from memlode.storage.sql import Connection

__all__ = ["CANDIDATE_COLUMNS", "candidate_rows", "token_states"]

# rowid, id, memory_type, importance, confidence, tags, namespace, source, session_id,
# created_at, metadata, created_by, and whether the text ends in "?" (trailing white space aside);
# ``{last}`` is the dialect's last character of the right-trimmed text
CANDIDATE_COLUMNS = (
    "rowid, id, memory_type, importance, confidence, tags, namespace, source, session_id,"
    " created_at, metadata, created_by, {last} = '?'"
)
_TRIMMED = "rtrim(content, ' \t\n\r')"
_CHUNK = 500


def candidate_rows(conn: Connection, ids: Sequence[str]) -> Iterator[tuple[Any, ...]]:
    """The ``CANDIDATE_COLUMNS`` of those of ``ids`` that exist, 500 ids a query."""
    columns = CANDIDATE_COLUMNS.format(last=dialect_of(conn).last_char(_TRIMMED))
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        yield from conn.execute(
            f"SELECT {columns} FROM memories WHERE id IN ({','.join('?' * len(chunk))})",
            chunk,
        )


def token_states(conn: Connection, ids: Sequence[str]) -> list[tuple[str, str, bytes]]:
    """(memory id, model, packed states) of those of ``ids`` that have token states."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    # By primary key only: with the model in the WHERE clause SQLite may walk the model's index
    # instead, reading every row's blob (27 ms a query at 10k memories, against ~1 ms).
    rows: list[tuple[str, str, bytes]] = conn.execute(
        f"SELECT memory_id, model, states FROM memory_tokens WHERE memory_id IN ({marks})",
        list(ids),
    ).fetchall()
    return rows
