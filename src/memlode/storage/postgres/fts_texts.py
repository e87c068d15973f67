"""What the in-memory copy of the text index (``memlode.search.postings``) reads of a PostgreSQL
store (the counterpart of ``memlode.storage.fts_texts``; Protocol ``TextIndexRows``): the
indexed text columns of every memory or of some, inside one REPEATABLE READ transaction with the
change log's position, and FTS5's tokenizer run on text pieces.

The tokenizer is SQLite's own (an in-memory SQLite database per PostgreSQL connection, with the
same temporary FTS5 table the SQLite backend makes), so a process's text index splits and stems
words exactly as it does over a SQLite store: BM25 over that index ranks the same on both
backends. ``tags`` is read as JSON text, the form SQLite's text index holds.
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from memlode.storage import fts_texts as sqlite_texts

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    import psycopg

__all__ = [
    "TEXT_COLUMNS",
    "create_tokenizer",
    "latest_seq",
    "read_snapshot",
    "store_extent",
    "text_rows",
    "text_rows_of",
    "tokenize_pieces",
]

# memories_fts's columns on SQLite, in the order of fts_match.BM25_WEIGHTS
TEXT_COLUMNS = "content, tags::text, search_terms, context_near, context_far"
_CHUNK = 500

_tokenizers: weakref.WeakKeyDictionary[Any, sqlite3.Connection] = weakref.WeakKeyDictionary()
# Server-side cursors opened by ``text_rows`` inside a ``read_snapshot``, closed when it ends
# (the reader fetches from them and leaves them open, as it may a SQLite cursor).
_open_cursors: weakref.WeakKeyDictionary[Any, list[Any]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _tokenizer_db(conn: psycopg.Connection[Any]) -> sqlite3.Connection:
    with _lock:
        found = _tokenizers.get(conn)
        if found is None:
            found = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            _tokenizers[conn] = found
        return found


def create_tokenizer(conn: psycopg.Connection[Any], tokenizer: str) -> None:
    """A temporary contentless FTS5 table with ``tokenizer``, and its instance vocabulary, in
    the SQLite database that tokenizes for ``conn``."""
    sqlite_texts.create_tokenizer(_tokenizer_db(conn), tokenizer)


def tokenize_pieces(conn: psycopg.Connection[Any], pieces: Sequence[str]) -> dict[int, list[str]]:
    """Index of each piece -> its tokens in order (one insert and one read for all)."""
    return sqlite_texts.tokenize_pieces(_tokenizer_db(conn), pieces)


def latest_seq(conn: psycopg.Connection[Any]) -> int:
    """The change log's latest sequence number (0 when empty)."""
    row = conn.execute("SELECT coalesce(max(seq), 0) FROM memories_fts_log").fetchone()
    return int(row[0]) if row is not None else 0


@contextmanager
def read_snapshot(conn: psycopg.Connection[Any]) -> Iterator[None]:
    """One read transaction: everything read inside it sees the same state of the store."""
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        try:
            yield
        finally:
            for cursor in _open_cursors.pop(conn, []):
                cursor.close()


def store_extent(conn: psycopg.Connection[Any]) -> tuple[int, int]:
    """(rows, largest rowid) of ``memories``."""
    row = conn.execute("SELECT count(*), coalesce(max(rowid), 0) FROM memories").fetchone()
    return (int(row[0]), int(row[1])) if row is not None else (0, 0)


def text_rows(conn: psycopg.Connection[Any]) -> Any:
    """(rowid, *TEXT_COLUMNS) of every memory, through a server-side cursor when inside a
    ``read_snapshot`` (the rows arrive as they are fetched, not all at once; the snapshot
    closes the cursor when it ends)."""
    from psycopg.pq import TransactionStatus

    sql = f"SELECT rowid, {TEXT_COLUMNS} FROM memories"
    if conn.info.transaction_status == TransactionStatus.IDLE:  # no snapshot: a plain cursor
        return conn.execute(sql)
    opened = _open_cursors.setdefault(conn, [])
    cursor = conn.cursor(name=f"memlode_text_rows_{len(opened)}")
    opened.append(cursor)
    cursor.execute(sql)
    return cursor


def text_rows_of(conn: psycopg.Connection[Any], rowids: Sequence[int]) -> Iterator[tuple[Any, ...]]:
    """(rowid, *TEXT_COLUMNS) of those of ``rowids`` that exist, 500 a query."""
    for start in range(0, len(rowids), _CHUNK):
        chunk = [int(r) for r in rowids[start : start + _CHUNK]]
        yield from conn.execute(
            f"SELECT rowid, {TEXT_COLUMNS} FROM memories WHERE rowid = ANY(%s)", (chunk,)
        ).fetchall()
