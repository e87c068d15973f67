"""What hybrid recall reads of its candidates by primary key, on PostgreSQL (the counterpart of
``memlode.storage.recall_rows``; Protocol ``RecallRows``): the columns it scores on, tags and
metadata as JSON text as SQLite stores them, and the stored token states."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    import psycopg

__all__ = ["CANDIDATE_COLUMNS", "candidate_rows", "token_states"]

# rowid, id, memory_type, importance, confidence, tags, namespace, source, session_id,
# created_at, metadata, and whether the text ends in "?" (trailing white space aside)
CANDIDATE_COLUMNS = (
    "rowid, id, memory_type, importance, confidence, tags::text, namespace, source, session_id,"
    " created_at, metadata::text, right(rtrim(content, E' \\t\\n\\r'), 1) = '?'"
)
_CHUNK = 500


def candidate_rows(conn: psycopg.Connection[Any], ids: Sequence[str]) -> Iterator[tuple[Any, ...]]:
    """The ``CANDIDATE_COLUMNS`` of those of ``ids`` that exist, 500 ids a query."""
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        yield from conn.execute(
            f"SELECT {CANDIDATE_COLUMNS} FROM memories WHERE id = ANY(%s)", (chunk,)
        ).fetchall()


def token_states(conn: psycopg.Connection[Any], ids: Sequence[str]) -> list[tuple[str, str, bytes]]:
    """(memory id, model, packed states) of those of ``ids`` that have token states."""
    if not ids:
        return []
    rows = conn.execute(
        "SELECT memory_id, model, states FROM memory_tokens WHERE memory_id = ANY(%s)",
        (list(ids),),
    ).fetchall()
    return [(r[0], r[1], bytes(r[2])) for r in rows]
