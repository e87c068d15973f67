"""A psycopg connection that runs the repositories' SQLite-dialect SQL (``memlode.storage.sql``).

The repositories are written once, with ``?`` placeholders; psycopg takes ``%s`` and reads a
literal ``%`` as the start of one. ``pg_sql`` rewrites a statement once (cached) and
``PgConnection`` applies it to every statement, so a repository module hands the same text to
either connection; it carries PostgreSQL's dialect (``dialect.POSTGRESQL``) for what the two
spell differently. JSON columns (jsonb) come back as their JSON text, as SQLite's do, so a module
decodes them the same way on both backends; rows read by position and by name (``rows.Row``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from memlode.storage.postgres.dialect import POSTGRESQL

if TYPE_CHECKING:
    import psycopg

__all__ = ["PgConnection", "PgCursor", "pg_sql", "use_json_text"]


@lru_cache(maxsize=4096)
def pg_sql(sql: str) -> str:
    """``sql`` with each ``?`` outside a quoted literal or identifier as ``%s``, and every ``%``
    doubled (psycopg reads ``%`` as a placeholder's start inside literals too)."""
    out: list[str] = []
    quote = ""
    for ch in sql:
        if ch == "%":
            out.append("%%")
        elif quote:
            out.append(ch)
            if ch == quote:
                quote = ""  # a doubled quote closes and reopens: the same text comes out
        elif ch in "'\"":
            quote = ch
            out.append(ch)
        elif ch == "?":
            out.append("%s")
        else:
            out.append(ch)
    return "".join(out)


def _params(parameters: Any) -> Sequence[Any]:
    if parameters is None:
        return ()
    if isinstance(parameters, (tuple, list)):
        return parameters
    return tuple(parameters)


def use_json_text(conn: psycopg.Connection[Any]) -> None:
    """Read ``json`` and ``jsonb`` values of ``conn`` as their text (text-format results)."""
    from psycopg.types.string import TextLoader

    conn.adapters.register_loader("jsonb", TextLoader)
    conn.adapters.register_loader("json", TextLoader)


class PgCursor:
    """A psycopg cursor taking ``?`` placeholders (for code that holds a cursor)."""

    def __init__(self, raw: psycopg.Cursor[Any]) -> None:
        self.raw = raw

    def execute(self, sql: str, parameters: Any = (), /) -> PgCursor:
        self.raw.execute(pg_sql(sql), _params(parameters))
        return self

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> PgCursor:
        self.raw.executemany(pg_sql(sql), [_params(p) for p in parameters])
        return self

    @property
    def rowcount(self) -> int:
        return self.raw.rowcount

    def fetchone(self) -> Any:
        return self.raw.fetchone()

    def fetchall(self) -> list[Any]:
        return self.raw.fetchall()

    def fetchmany(self, size: int = 1) -> list[Any]:
        return self.raw.fetchmany(size)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.raw)

    def close(self) -> None:
        self.raw.close()


class PgConnection:
    """A psycopg connection (autocommit, ``rows.Row`` rows, JSON as text) with the surface of
    ``sqlite3.Connection`` that the repositories use. ``raw`` is the psycopg connection, for
    what only PostgreSQL has (vectors, the server's text search, transactions)."""

    dialect = POSTGRESQL

    def __init__(self, raw: psycopg.Connection[Any]) -> None:
        self.raw = raw

    def execute(self, sql: str, parameters: Any = (), /) -> PgCursor:
        return PgCursor(self.raw.cursor()).execute(sql, parameters)

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> PgCursor:
        return PgCursor(self.raw.cursor()).executemany(sql, parameters)

    def cursor(self) -> PgCursor:
        return PgCursor(self.raw.cursor())

    def vector_cursor(self) -> PgCursor:
        """A cursor whose ``vector`` columns come back as little-endian float32 bytes, as SQLite
        stores them (``rows.vector_bytes_cursor``)."""
        from memlode.storage.postgres.rows import vector_bytes_cursor

        return PgCursor(vector_bytes_cursor(self.raw))

    def server_cursor(self, name: str) -> PgCursor:
        """A server-side cursor named ``name``: its rows arrive as they are fetched (inside a
        transaction; ``text_reads.streamed_rows``)."""
        return PgCursor(self.raw.cursor(name=name))

    @property
    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus

        return self.raw.info.transaction_status != TransactionStatus.IDLE

    def close(self) -> None:
        self.raw.close()
