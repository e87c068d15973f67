"""One repository module, two databases: the connection type and the SQL that differs.

Every repository in ``memlode.storage`` is written once, in SQL both SQLite and PostgreSQL run:
``?`` placeholders, ``INSERT ... ON CONFLICT``, ``RETURNING``, ``TRUE``, ``IN (?, ?)``. On a
PostgreSQL store the connection is ``memlode.storage.postgres.adapter.PgConnection``, which
turns ``?`` into psycopg's ``%s`` and hands JSON columns back as text, as SQLite does. What still
differs between the two is asked of the connection's ``Dialect`` (``dialect_of(conn)``): one
method per construct, and a flag per capability a caller needs (``has_fts5``, ``on_server``,
...), so a module reads like SQL and never asks which backend it is.

``Dialect`` here is SQLite's: each method returns SQLite's fragment, each flag has SQLite's
value. PostgreSQL's is its subclass ``memlode.storage.postgres.dialect.PostgresDialect``, which
overrides every one of them. This module never imports it (``storage.postgres`` imports this
one, and a SQLite process never loads that package): a connection carries its dialect
(``PgConnection.dialect``), and anything else, ``sqlite3.Connection`` included, is SQLite.
``name`` is for display only (``memlode stats``' backend); ``tests/foundation`` fails when a
module outside ``storage/postgres`` compares it or a dialect itself.

This is the one seam between the backends: the connection a repository is given
(``Connection`` below) and its ``Dialect``; each repository module is written once against them.
There is no per-backend list of repositories: both backends run the same modules, and the
contract suite (``tests/storage/contract``) calls those modules on a connection of each. A new
backend is a new connection and a new ``Dialect`` subclass.

Import-light: the hooks import the repositories on every tool call, so this module imports
nothing at all at run time (no ``typing``, ``dataclasses``, ``contextlib`` or ``sqlite3``);
``Connection`` and ``Row`` exist for the type checker only, and a repository imports them under
``TYPE_CHECKING``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, ClassVar

    # The connection a repository is given: ``sqlite3.Connection``, or ``PgConnection`` (which
    # also carries its ``Dialect``). A repository uses ``execute``, ``executemany`` and
    # ``cursor`` of it, with ``?`` placeholders, and asks ``dialect_of(conn)`` where the two
    # databases differ. Typed loosely: callers hold either class.
    Connection = Any
    Row = Any  # a row read by position or by name (sqlite3.Row; PgConnection's rows alike)

__all__ = [
    "SQLITE",
    "Dialect",
    "dialect_of",
    "is_server_error",
    "is_unique_violation",
]


class Dialect:
    """SQLite's SQL for what the two backends spell differently; the base of every dialect.

    Each method returns a fragment with ``?`` placeholders; its parameters are the caller's,
    in the order the fragment takes them. What a backend has or lacks is a flag a caller asks
    (``has_fts5``, ``has_code_tables``, ``on_server``, ``typed``), never its name. A few
    methods run what is not a fragment (``fetch_vectors``, ``bind_vectors``, ``snapshot``,
    ``text_rows``, ``tokenizer``): they take the connection.
    """

    __slots__ = ()

    # The backend's name, for display (``memlode stats``, ``doctor``); never compared.
    name: ClassVar[str] = "sqlite"

    # Does every store of this backend have the code index's tables? A PostgreSQL store keeps
    # no code (each machine's index is a SQLite file: ``memlode.storage.code_store``), and a
    # schema migrated before the tables existed may lack them.
    has_code_tables: ClassVar[bool] = True

    # Does the store keep SQLite's FTS5 indexes (``memories_fts``), to match and score text in
    # SQL? PostgreSQL's stores match ``text_vector`` instead and score in process
    # (``memlode.search.text_index``).
    has_fts5: ClassVar[bool] = True

    # Is the store on a database server rather than in a file this process opens? A hook then
    # spools its event for the store's resident (``memlode.hooks.handoff``) instead of writing
    # (the driver costs more than a hook's budget).
    on_server: ClassVar[bool] = False

    # Does every value have its column's declared type? PostgreSQL's text is valid UTF-8, its
    # jsonb valid JSON, its vectors of their declared size; SQLite stores any value in any
    # column, so a check of stored rows must look (``memlode.storage.row_checks``).
    typed: ClassVar[bool] = False

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    def data_version(self) -> str:
        """A query of one number that changes when another connection commits, read without
        touching a table: SQLite's data version."""
        return "PRAGMA data_version"

    def journal_mode(self) -> str:
        """A query of the store's journal mode (one text value), as ``memlode doctor`` shows
        it."""
        return "PRAGMA journal_mode"

    def quick_check(self) -> str:
        """A query whose one value is ``'ok'`` when the store's pages check out
        (``PRAGMA quick_check``)."""
        return "PRAGMA quick_check"

    def text_index_rows(self) -> str:
        """A query of the number of rows in the store's text index (FTS5's ``memories_fts``)."""
        return "SELECT count(*) FROM memories_fts"

    def json_param(self) -> str:
        """A JSON text parameter bound into a JSON column or function."""
        return "?"

    def json_has(self, column: str) -> str:
        """``column`` (a JSON array) has the string parameter as an element."""
        return f"EXISTS (SELECT 1 FROM json_each({column}) WHERE value = ?)"

    def json_lacks(self, column: str) -> str:
        """``column`` (a JSON array of strings) does not have the string parameter as an element.

        On SQLite a text search for the quoted element (no ``json_each`` per row: this filter
        runs on every recall); it errs only for a tag that itself ends in a quote followed by
        the parameter."""
        return f"instr({column}, json_quote(?)) = 0"

    def json_text(self, column: str, key: str) -> str:
        """The text of the top-level ``key`` of the JSON object ``column`` (NULL when absent).
        ``key`` is a constant of the caller's, never user input."""
        return f"json_extract({column}, '$.{key}')"

    def json_patch(self, column: str) -> str:
        """``column`` merged with the JSON object parameter (RFC 7396 merge patch)."""
        return f"json_patch({column}, ?)"

    def greatest(self, *exprs: str) -> str:
        """The largest of ``exprs`` (SQLite's scalar ``max``)."""
        return f"max({', '.join(exprs)})"

    def least(self, *exprs: str) -> str:
        """The smallest of ``exprs`` (SQLite's scalar ``min``)."""
        return f"min({', '.join(exprs)})"

    def position(self, haystack: str, needle: str) -> str:
        """The 1-based position of ``needle`` in ``haystack``, 0 when absent (``instr``)."""
        return f"instr({haystack}, {needle})"

    def like(self) -> str:
        """The operator that matches a pattern ignoring ASCII case, as SQLite's LIKE does."""
        return "LIKE"

    def json_set_key(self, column: str) -> str:
        """``column`` (a JSON object) with the top-level key named by the first (text) parameter
        set to the JSON text of the second, added when absent."""
        return f"json_set({column}, '$.\"' || ? || '\"', json(?))"

    def json_number(self, column: str, key: str) -> str:
        """The number at the top-level ``key`` of the JSON object ``column`` (NULL when absent;
        SQLite's ``json_extract`` gives the text of a value that is not a number). ``key`` is a
        constant of the caller's, never user input."""
        return f"json_extract({column}, '$.{key}')"

    def json_has_any(self, column: str, count: int) -> str:
        """``column`` (a JSON array) has one of the ``count`` (at least one) string parameters
        as an element."""
        marks = ", ".join("?" * count)
        return f"EXISTS (SELECT 1 FROM json_each({column}) WHERE value IN ({marks}))"

    def json_has_any_quick(
        self, column: str, values: tuple[str, ...]
    ) -> tuple[str, tuple[str, ...]]:
        """``column`` (a JSON array of strings) has one of ``values`` (at least one), and the
        fragment's parameters. On SQLite a text search of each quoted value (no ``json_each``
        per row), which errs as ``json_lacks`` does."""
        where = " OR ".join(f"instr({column}, ?) > 0" for _ in values)
        return where, tuple(f'"{v}"' for v in values)

    def last_char(self, expr: str) -> str:
        """The last character of the text ``expr`` ('' when empty)."""
        return f"substr({expr}, -1)"

    def json_type(self, column: str) -> str:
        """The JSON type of ``column``: 'object', 'array', 'null' or a scalar's type (the
        backends name scalars differently); NULL when ``column`` is NULL or, on SQLite, not
        valid JSON."""
        return f"CASE WHEN json_valid({column}) THEN json_type({column}) END"

    def days_ago(self) -> str:
        """The UTC time the integer parameter's number of days ago, as memlode writes times
        (``2026-01-02T03:04:05.678Z``), so that it compares with a stored time as text."""
        return "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || ? || ' days')"

    def table_names(self) -> str:
        """A query of the names of the store's tables (one column)."""
        return "SELECT name FROM sqlite_master WHERE type = 'table'"

    def renumber_rowid(self, table: str) -> str:
        """A new ``rowid`` of an updated row of ``table``, above every one it has now
        (``SET rowid = <this>``)."""
        return f"rowid + (SELECT coalesce(max(rowid), 0) FROM {table})"

    def by_rowid(self, table: str) -> str:
        """``table`` read by rowid, none of its other indexes (SQLite's ``NOT INDEXED``: its
        planner, without statistics, may walk another index instead)."""
        return f"{table} NOT INDEXED"

    def vector_param(self, vector: bytes) -> Any:
        """A vector (little-endian float32 bytes) as the parameter of a vector column: SQLite
        stores the bytes."""
        return vector

    def bind_vectors(
        self, conn: Connection, rows: Sequence[tuple[Any, ...]]
    ) -> Sequence[tuple[Any, ...]]:
        """``embeddings.write_vectors``'s (memory id, model, dim, vector bytes, text hash,
        created at) rows as the backend binds them, once whatever index a new dimension needs
        exists: on SQLite the rows themselves (a vector is a blob, with no index)."""
        return rows

    def vector_reader(self, conn: Connection) -> Any:
        """What runs a query whose vector columns must come back as little-endian float32
        bytes, its rows read as they are fetched: ``conn`` itself on SQLite."""
        return conn

    def fetch_vectors(self, conn: Connection, sql: str, parameters: Any = ()) -> list[Any]:
        """The rows of ``sql`` with each vector column as little-endian float32 bytes, as SQLite
        stores vectors. Not a fragment: a backend may read them through a cursor of its own
        (select no JSON column: there it might come back decoded)."""
        cursor = self.vector_cursor(conn)
        try:
            rows: list[Any] = cursor.execute(sql, parameters).fetchall()
        finally:
            cursor.close()
        return rows

    def vector_cursor(self, conn: Connection) -> Any:
        """A cursor of ``conn`` that reads vectors as bytes (``fetch_vectors`` closes it)."""
        return conn.cursor()

    def tokenizer(self, conn: Connection) -> Any:
        """The SQLite connection whose FTS5 tokenizes text for ``conn``
        (``memlode.storage.fts_texts``): ``conn`` itself on SQLite."""
        return conn

    def snapshot(self, conn: Connection) -> Any:
        """A context manager: one read transaction of ``conn``, in which everything read sees
        the same state of the store (``BEGIN`` ... ``COMMIT`` on SQLite)."""
        return _ReadTransaction(conn)

    def text_rows(self, conn: Connection, sql: str) -> Any:
        """The rows of ``sql`` (no parameters), read as they are fetched, inside a
        ``snapshot`` or not: a cursor of ``conn`` on SQLite."""
        return conn.execute(sql)


class _ReadTransaction:
    """``BEGIN`` on entry, ``COMMIT`` on exit (also when the block raised: it only read)."""

    __slots__ = ("conn",)

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN")

    def __exit__(self, *exc: object) -> None:
        self.conn.execute("COMMIT")


SQLITE = Dialect()


def dialect_of(conn: object) -> Dialect:
    """The dialect of ``conn``: a ``PgConnection`` says so; anything else is SQLite."""
    dialect = getattr(conn, "dialect", None)
    return dialect if isinstance(dialect, Dialect) else SQLITE


def is_unique_violation(exc: BaseException) -> bool:
    """Is ``exc`` a UNIQUE or primary-key violation, on either backend?"""
    if type(exc).__name__ == "IntegrityError" and type(exc).__module__ == "sqlite3":
        return "UNIQUE" in str(exc) or "PRIMARY KEY" in str(exc)
    return getattr(exc, "sqlstate", None) == "23505"  # psycopg's unique_violation


def is_server_error(exc: BaseException) -> bool:
    """Is ``exc`` an error of the PostgreSQL driver (psycopg's), told without importing it (the
    SQLite path never loads the driver)?"""
    return type(exc).__module__.split(".")[0] == "psycopg"
