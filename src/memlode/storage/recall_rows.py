"""What hybrid recall reads of its candidates by primary key: the columns it scores on (with
whether the text ends in a question mark), and the stored token states for late interaction.
Both read by id in chunks, never by scanning: recall calls these on every query."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["CANDIDATE_COLUMNS", "candidate_rows", "token_states"]

# rowid, id, memory_type, importance, confidence, tags, namespace, source, session_id,
# created_at, metadata, and whether the text ends in "?" (trailing white space aside)
CANDIDATE_COLUMNS = (
    "rowid, id, memory_type, importance, confidence, tags, namespace, source, session_id,"
    " created_at, metadata,"
    " substr(rtrim(content, ' ' || char(9, 10, 13)), -1) = '?'"
)
_CHUNK = 500


def candidate_rows(conn: sqlite3.Connection, ids: Sequence[str]) -> Iterator[tuple[Any, ...]]:
    """The ``CANDIDATE_COLUMNS`` of those of ``ids`` that exist, 500 ids a query."""
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        yield from conn.execute(
            f"SELECT {CANDIDATE_COLUMNS} FROM memories WHERE id IN ({','.join('?' * len(chunk))})",
            chunk,
        )


def token_states(conn: sqlite3.Connection, ids: Sequence[str]) -> list[tuple[str, str, bytes]]:
    """(memory id, model, packed states) of those of ``ids`` that have token states."""
    marks = ",".join("?" * len(ids))
    # By primary key only: with the model in the WHERE clause SQLite may walk the model's index
    # instead, reading every row's blob (27 ms a query at 10k memories, against ~1 ms).
    return conn.execute(
        f"SELECT memory_id, model, states FROM memory_tokens WHERE memory_id IN ({marks})",
        list(ids),
    ).fetchall()
