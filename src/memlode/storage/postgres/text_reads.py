"""What reading the texts of a PostgreSQL store for the in-memory text index
(``memlode.search.postings``) needs that SQLite does not: ``memlode.storage.fts_texts`` reaches
these through the connection's dialect (``dialect.PostgresDialect``).

The tokenizer is SQLite's own, in an in-memory SQLite database per PostgreSQL connection with the
same temporary FTS5 table the SQLite backend makes, so a process's text index splits and stems
words exactly as it does over a SQLite store: BM25 over that index ranks the same on both. A
snapshot is a REPEATABLE READ, READ ONLY transaction, and the rows of every memory read inside
one come through a server-side cursor (as they are fetched, not all at once).
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

    # a PgConnection (``adapter``), not imported: ``adapter`` -> ``dialect`` -> this module
    from memlode.storage.sql import Connection as PgConnection

__all__ = ["read_snapshot", "streamed_rows", "tokenizer_db"]

# Keyed by the psycopg connection (``PgConnection.raw``): wrappers of one connection share them.
_tokenizers: weakref.WeakKeyDictionary[Any, sqlite3.Connection] = weakref.WeakKeyDictionary()
# Server-side cursors opened by ``streamed_rows`` inside a ``read_snapshot``, closed when it ends
# (the reader fetches from them and leaves them open, as it may a SQLite cursor).
_open_cursors: weakref.WeakKeyDictionary[Any, list[Any]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def tokenizer_db(conn: PgConnection) -> sqlite3.Connection:
    """The in-memory SQLite database that tokenizes for ``conn``."""
    with _lock:
        found = _tokenizers.get(conn.raw)
        if found is None:
            found = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            _tokenizers[conn.raw] = found
        return found


@contextmanager
def read_snapshot(conn: PgConnection) -> Iterator[None]:
    """One REPEATABLE READ, READ ONLY transaction; closes the cursors ``streamed_rows`` opened
    in it."""
    with conn.raw.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        try:
            yield
        finally:
            for cursor in _open_cursors.pop(conn.raw, []):
                cursor.close()


def streamed_rows(conn: PgConnection, sql: str) -> Any:
    """The rows of ``sql`` (no parameters): through a server-side cursor inside a
    ``read_snapshot``, a plain one outside any transaction."""
    if not conn.in_transaction:
        return conn.execute(sql)
    opened = _open_cursors.setdefault(conn.raw, [])
    cursor = conn.server_cursor(f"memlode_text_rows_{len(opened)}")
    opened.append(cursor)
    return cursor.execute(sql)
