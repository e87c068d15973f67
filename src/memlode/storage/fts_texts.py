"""What the in-memory copy of the FTS index (``memlode.search.postings``) reads: the indexed
text columns of every memory (in ``bm25()``'s column order) or of some, inside one read
transaction with the change log's position, and FTS5's own tokenizer run on text pieces
through a temporary table (so the copy splits words exactly as ``memories_fts`` does).

One module for both backends, the differences asked of the connection's ``Dialect``: on
PostgreSQL the tokenizer is the same FTS5 one, in a SQLite database of the process's own, a
snapshot is a REPEATABLE READ transaction and every memory's text comes through a server-side
cursor (``memlode.storage.postgres.text_reads``)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from memlode.storage.sql import dialect_of

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from memlode.storage.sql import Connection

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

# memories_fts's columns, in the order of fts_match.BM25_WEIGHTS
TEXT_COLUMNS = "content, tags, search_terms, context_near, context_far"
_CLEAR = "INSERT INTO temp.memlode_tokenizer (memlode_tokenizer) VALUES ('delete-all')"


def create_tokenizer(conn: Connection, tokenizer: str) -> None:
    """A temporary contentless FTS5 table with ``tokenizer``, and its instance vocabulary."""
    db = dialect_of(conn).tokenizer(conn)
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memlode_tokenizer USING fts5"
        f"(piece, content='', tokenize='{tokenizer}')"
    )
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memlode_tokenizer_vocab"
        " USING fts5vocab(temp, memlode_tokenizer, instance)"
    )


def tokenize_pieces(conn: Connection, pieces: Sequence[str]) -> dict[int, list[str]]:
    """Index of each piece -> its tokens in order (one insert and one read for all)."""
    db = dialect_of(conn).tokenizer(conn)
    db.execute(_CLEAR)  # in case an earlier call stopped half way
    db.executemany(
        "INSERT INTO temp.memlode_tokenizer (rowid, piece) VALUES (?, ?)", enumerate(pieces)
    )
    found: dict[int, list[str]] = {}
    rows = db.execute("SELECT doc, term FROM temp.memlode_tokenizer_vocab ORDER BY doc, offset")
    for doc, term in rows:
        found.setdefault(doc, []).append(term)
    db.execute(_CLEAR)
    return found


def latest_seq(conn: Connection) -> int:
    """The change log's latest sequence number (0 when empty)."""
    return int(conn.execute("SELECT coalesce(max(seq), 0) FROM memories_fts_log").fetchone()[0])


@contextmanager
def read_snapshot(conn: Connection) -> Iterator[None]:
    """One read transaction: everything read inside it sees the same state of the store."""
    with dialect_of(conn).snapshot(conn):
        yield


def store_extent(conn: Connection) -> tuple[int, int]:
    """(rows, largest rowid) of ``memories``."""
    count, top = conn.execute("SELECT count(*), coalesce(max(rowid), 0) FROM memories").fetchone()
    return int(count), int(top)


def text_rows(conn: Connection) -> Any:
    """(rowid, *TEXT_COLUMNS) of every memory: a cursor (on PostgreSQL inside a
    ``read_snapshot``, a server-side one: the rows arrive as they are fetched)."""
    return dialect_of(conn).text_rows(conn, f"SELECT rowid, {TEXT_COLUMNS} FROM memories")


def text_rows_of(conn: Connection, rowids: Sequence[int]) -> Iterator[tuple[Any, ...]]:
    """(rowid, *TEXT_COLUMNS) of those of ``rowids`` that exist, 500 a query."""
    for start in range(0, len(rowids), 500):
        chunk = list(rowids[start : start + 500])
        yield from conn.execute(
            f"SELECT rowid, {TEXT_COLUMNS} FROM memories"
            f" WHERE rowid IN ({','.join('?' * len(chunk))})",
            chunk,
        ).fetchall()
