"""What the in-memory copy of the FTS index (``memlode.search.postings``) reads: the indexed
text columns of every memory (in ``bm25()``'s column order) or of some, inside one read
transaction with the change log's position, and FTS5's own tokenizer run on text pieces
through a temporary table (so the copy splits words exactly as ``memories_fts`` does)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

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


def create_tokenizer(conn: sqlite3.Connection, tokenizer: str) -> None:
    """A temporary contentless FTS5 table with ``tokenizer``, and its instance vocabulary."""
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memlode_tokenizer USING fts5"
        f"(piece, content='', tokenize='{tokenizer}')"
    )
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memlode_tokenizer_vocab"
        " USING fts5vocab(temp, memlode_tokenizer, instance)"
    )


def tokenize_pieces(conn: sqlite3.Connection, pieces: Sequence[str]) -> dict[int, list[str]]:
    """Index of each piece -> its tokens in order (one insert and one read for all)."""
    conn.execute(_CLEAR)  # in case an earlier call stopped half way
    conn.executemany(
        "INSERT INTO temp.memlode_tokenizer (rowid, piece) VALUES (?, ?)", enumerate(pieces)
    )
    found: dict[int, list[str]] = {}
    rows = conn.execute("SELECT doc, term FROM temp.memlode_tokenizer_vocab ORDER BY doc, offset")
    for doc, term in rows:
        found.setdefault(doc, []).append(term)
    conn.execute(_CLEAR)
    return found


def latest_seq(conn: sqlite3.Connection) -> int:
    """The change log's latest sequence number (0 when empty)."""
    return int(conn.execute("SELECT coalesce(max(seq), 0) FROM memories_fts_log").fetchone()[0])


@contextmanager
def read_snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """One read transaction: everything read inside it sees the same state of the store."""
    conn.execute("BEGIN")
    try:
        yield
    finally:
        conn.execute("COMMIT")


def store_extent(conn: sqlite3.Connection) -> tuple[int, int]:
    """(rows, largest rowid) of ``memories``."""
    count, top = conn.execute("SELECT count(*), coalesce(max(rowid), 0) FROM memories").fetchone()
    return int(count), int(top)


def text_rows(conn: sqlite3.Connection) -> sqlite3.Cursor:
    """(rowid, *TEXT_COLUMNS) of every memory."""
    return conn.execute(f"SELECT rowid, {TEXT_COLUMNS} FROM memories")


def text_rows_of(conn: sqlite3.Connection, rowids: Sequence[int]) -> Iterator[tuple[Any, ...]]:
    """(rowid, *TEXT_COLUMNS) of those of ``rowids`` that exist, 500 a query."""
    for start in range(0, len(rowids), 500):
        chunk = list(rowids[start : start + 500])
        yield from conn.execute(
            f"SELECT rowid, {TEXT_COLUMNS} FROM memories"
            f" WHERE rowid IN ({','.join('?' * len(chunk))})",
            chunk,
        ).fetchall()
