"""One repository module, two databases: the connection type and the SQL that differs.

Every repository in ``memlode.storage`` is written once, in SQL both SQLite and PostgreSQL run:
``?`` placeholders, ``INSERT ... ON CONFLICT``, ``RETURNING``, ``TRUE``, ``IN (?, ?)``. On a
PostgreSQL store the connection is ``memlode.storage.postgres.connection.PgConnection``, which
turns ``?`` into psycopg's ``%s`` and hands JSON columns back as text, as SQLite does. What still
differs between the two is asked of the connection's ``Dialect`` (``dialect_of(conn)``), one
method per construct, so a module reads like SQL and never branches on the backend by name.

This is the one seam between the backends: the connection a repository is given
(``Connection`` below: ``sqlite3.Connection``, or ``PgConnection``, which also carries the
``Dialect``), and each repository module is written once against it. There is no
per-backend list of repositories: both backends run the same modules, and the contract suite
(``tests/storage/contract``) calls those modules on a connection of each.

Import-light: the hooks import the repositories on every tool call, so this module imports
nothing at all at run time (no ``typing``, ``dataclasses`` or ``sqlite3``); ``Connection`` and
``Row`` exist for the type checker only, and a repository imports them under
``TYPE_CHECKING``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    # The connection a repository is given: ``sqlite3.Connection``, or ``PgConnection`` (which
    # also carries its ``Dialect``). A repository uses ``execute``, ``executemany`` and
    # ``cursor`` of it, with ``?`` placeholders, and asks ``dialect_of(conn)`` where the two
    # databases differ. Typed loosely: callers hold either class.
    Connection = Any
    Row = Any  # a row read by position or by name (sqlite3.Row; PgConnection's rows alike)

__all__ = [
    "POSTGRESQL",
    "SQLITE",
    "Dialect",
    "dialect_of",
    "is_server_error",
    "is_unique_violation",
]


class Dialect:
    """The SQL of one backend for what the two spell differently.

    Each method returns a fragment with ``?`` placeholders; its parameters are the caller's,
    in the order the fragment takes them. What a backend has or lacks is a flag a caller asks
    (``has_fts5``, ``has_code_tables``, ``on_server``, ``typed``), never its name.
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Dialect({self.name!r})"

    @property
    def postgres(self) -> bool:
        """Is this PostgreSQL's SQL? For the methods below; a caller asks the capability it
        needs or the construct's method instead."""
        return self.name == "postgresql"

    @property
    def has_code_tables(self) -> bool:
        """Does every store of this backend have the code index's tables? A PostgreSQL store
        keeps no code (each machine's index is a SQLite file: ``memlode.storage.code_store``),
        and a schema migrated before the tables existed may lack them."""
        return not self.postgres

    @property
    def has_fts5(self) -> bool:
        """Does the store keep SQLite's FTS5 indexes (``memories_fts``), to match and score
        text in SQL? PostgreSQL's stores match ``text_vector`` instead and score in process
        (``memlode.search.text_index``)."""
        return not self.postgres

    def data_version(self) -> str:
        """A query of one number that changes when another connection commits, read without
        touching a table: SQLite's data version; on PostgreSQL the oldest transaction still
        running or to come (it moves on with every commit on the server, so it may change with
        nothing of ours)."""
        if self.postgres:
            return "SELECT CAST(pg_snapshot_xmin(pg_current_snapshot()) AS text)"
        return "PRAGMA data_version"

    def json_param(self) -> str:
        """A JSON text parameter bound into a JSON column or function."""
        return "CAST(? AS jsonb)" if self.postgres else "?"

    def json_has(self, column: str) -> str:
        """``column`` (a JSON array) has the string parameter as an element."""
        if self.postgres:
            return f"{column} @> jsonb_build_array(CAST(? AS text))"
        return f"EXISTS (SELECT 1 FROM json_each({column}) WHERE value = ?)"

    def json_lacks(self, column: str) -> str:
        """``column`` (a JSON array of strings) does not have the string parameter as an element.

        On SQLite a text search for the quoted element (no ``json_each`` per row: this filter
        runs on every recall); it errs only for a tag that itself ends in a quote followed by
        the parameter."""
        if self.postgres:
            return f"NOT ({self.json_has(column)})"
        return f"instr({column}, json_quote(?)) = 0"

    def json_text(self, column: str, key: str) -> str:
        """The text of the top-level ``key`` of the JSON object ``column`` (NULL when absent).
        ``key`` is a constant of the caller's, never user input."""
        if self.postgres:
            return f"({column} ->> '{key}')"
        return f"json_extract({column}, '$.{key}')"

    def json_patch(self, column: str) -> str:
        """``column`` merged with the JSON object parameter (RFC 7396 merge patch)."""
        if self.postgres:
            return f"memlode_json_patch({column}, CAST(? AS jsonb))"
        return f"json_patch({column}, ?)"

    def greatest(self, *exprs: str) -> str:
        """The largest of ``exprs`` (SQLite's scalar ``max``)."""
        return f"{'greatest' if self.postgres else 'max'}({', '.join(exprs)})"

    def least(self, *exprs: str) -> str:
        """The smallest of ``exprs`` (SQLite's scalar ``min``)."""
        return f"{'least' if self.postgres else 'min'}({', '.join(exprs)})"

    def position(self, haystack: str, needle: str) -> str:
        """The 1-based position of ``needle`` in ``haystack``, 0 when absent (``instr``)."""
        return f"{'strpos' if self.postgres else 'instr'}({haystack}, {needle})"

    def like(self) -> str:
        """The operator that matches a pattern ignoring ASCII case, as SQLite's LIKE does."""
        return "ILIKE" if self.postgres else "LIKE"

    def json_set_key(self, column: str) -> str:
        """``column`` (a JSON object) with the top-level key named by the first (text) parameter
        set to the JSON text of the second, added when absent."""
        if self.postgres:
            return f"jsonb_set({column}, ARRAY[CAST(? AS text)], CAST(? AS jsonb), true)"
        return f"json_set({column}, '$.\"' || ? || '\"', json(?))"

    def json_number(self, column: str, key: str) -> str:
        """The number at the top-level ``key`` of the JSON object ``column`` (NULL when absent;
        PostgreSQL: NULL too when not a number, where SQLite's ``json_extract`` gives the text).
        ``key`` is a constant of the caller's, never user input."""
        if self.postgres:
            return (
                f"(CASE WHEN jsonb_typeof({column} -> '{key}') = 'number'"
                f" THEN ({column} ->> '{key}')::double precision END)"
            )
        return f"json_extract({column}, '$.{key}')"

    def json_has_any(self, column: str, count: int) -> str:
        """``column`` (a JSON array) has one of the ``count`` (at least one) string parameters
        as an element."""
        marks = ", ".join("?" * count)
        if self.postgres:
            return (
                f"EXISTS (SELECT 1 FROM jsonb_array_elements_text({column}) AS e (value)"
                f" WHERE e.value IN ({marks}))"
            )
        return f"EXISTS (SELECT 1 FROM json_each({column}) WHERE value IN ({marks}))"

    def json_has_any_quick(
        self, column: str, values: tuple[str, ...]
    ) -> tuple[str, tuple[str, ...]]:
        """``column`` (a JSON array of strings) has one of ``values`` (at least one), and the
        fragment's parameters. On SQLite a text search of each quoted value (no ``json_each``
        per row), which errs as ``json_lacks`` does; PostgreSQL asks ``json_has_any``."""
        if self.postgres:
            return self.json_has_any(column, len(values)), values
        where = " OR ".join(f"instr({column}, ?) > 0" for _ in values)
        return where, tuple(f'"{v}"' for v in values)

    def fetch_vectors(self, conn: Any, sql: str, parameters: Any = ()) -> list[Any]:
        """The rows of ``sql`` with each vector column as little-endian float32 bytes, as SQLite
        stores vectors. Not a fragment: pgvector's values are read through a binary cursor
        (``PgConnection.vector_cursor``; its JSON columns would come back decoded, so select
        none)."""
        cursor = self.vector_reader(conn) if self.postgres else conn.cursor()
        try:
            rows: list[Any] = cursor.execute(sql, parameters).fetchall()
        finally:
            cursor.close()
        return rows

    def vector_reader(self, conn: Any) -> Any:
        """What runs a query whose vector columns must come back as little-endian float32
        bytes, its rows read as they are fetched: ``conn`` itself on SQLite, pgvector's binary
        cursor on PostgreSQL (``PgConnection.vector_cursor``; select no JSON column there)."""
        return conn.vector_cursor() if self.postgres else conn

    @property
    def on_server(self) -> bool:
        """Is the store on a database server rather than in a file this process opens? A hook
        then spools its event for the store's resident (``memlode.hooks.handoff``) instead of
        writing (the driver costs more than a hook's budget)."""
        return self.postgres

    def vector_param(self, vector: bytes) -> Any:
        """A vector (little-endian float32 bytes) as the parameter of a vector column
        (``postgres.rows.as_vector`` on PostgreSQL)."""
        if not self.postgres:
            return vector
        from memlode.storage.postgres.rows import as_vector

        return as_vector(vector)

    def last_char(self, expr: str) -> str:
        """The last character of the text ``expr`` ('' when empty)."""
        return f"right({expr}, 1)" if self.postgres else f"substr({expr}, -1)"

    def json_type(self, column: str) -> str:
        """The JSON type of ``column``: 'object', 'array', 'null' or a scalar's type (the two
        name scalars differently); NULL when ``column`` is NULL or, on SQLite, not valid JSON."""
        if self.postgres:
            return f"jsonb_typeof({column})"
        return f"CASE WHEN json_valid({column}) THEN json_type({column}) END"

    def days_ago(self) -> str:
        """The UTC time the integer parameter's number of days ago, as memlode writes times
        (``2026-01-02T03:04:05.678Z``), so that it compares with a stored time as text."""
        if self.postgres:
            return (
                "to_char((now() AT TIME ZONE 'utc') - make_interval(days => CAST(? AS integer)),"
                ' \'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\')'
            )
        return "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || ? || ' days')"

    def table_names(self) -> str:
        """A query of the names of the store's tables (one column)."""
        if self.postgres:
            return "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
        return "SELECT name FROM sqlite_master WHERE type = 'table'"

    def renumber_rowid(self, table: str) -> str:
        """A new ``rowid`` of an updated row of ``table``, above every one it has now
        (``SET rowid = <this>``; PostgreSQL's identity column takes its next value)."""
        if self.postgres:
            return "DEFAULT"
        return f"rowid + (SELECT coalesce(max(rowid), 0) FROM {table})"

    @property
    def typed(self) -> bool:
        """Does every value have its column's declared type? PostgreSQL's text is valid UTF-8,
        its jsonb valid JSON, its vectors of their declared size; SQLite stores any value in
        any column, so a check of stored rows must look (``memlode.storage.row_checks``)."""
        return self.postgres

    def by_rowid(self, table: str) -> str:
        """``table`` read by rowid, none of its other indexes (SQLite's ``NOT INDEXED``: its
        planner, without statistics, may walk another index instead); PostgreSQL plans it."""
        return table if self.postgres else f"{table} NOT INDEXED"


SQLITE = Dialect("sqlite")
POSTGRESQL = Dialect("postgresql")


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
