"""Connections to a PostgreSQL store: one for a short-lived process, a pool for a long-lived one.

Every connection is in autocommit mode, like the SQLite ones (``isolation_level=None``): a read
is its own statement, and a write is one explicit transaction (``write_transaction``) at READ
COMMITTED that first takes the store's write lock, so writers take turns as on SQLite (reads
never wait); the dedup constraint with ``INSERT ... ON CONFLICT`` holds whatever path a write
takes. Every connection carries ``memlode.created_by`` (who stores memories through it:
the ``memories.created_by`` default) and has the pgvector types registered (vectors come back as
numpy arrays), reads JSON columns as their text and rows by position and by name
(``rows.Row``), as SQLite does.
Migrations run once, on the first connection a process opens to a store.

A store may live in a schema of its own: the URL's ``options=-csearch_path=<schema>,public``
(``public``, or wherever the ``vector`` extension was created, must stay on the path).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from memlode.errors import MissingDependency, StorageError, StoreUnreachable
from memlode.storage.postgres import INSTALL_HINT
from memlode.storage.postgres.adapter import PgConnection, use_json_text
from memlode.storage.postgres.dialect import POSTGRESQL
from memlode.storage.postgres.migrations import apply_migrations
from memlode.storage.postgres.rows import row_factory

if TYPE_CHECKING:
    from pathlib import Path

    import psycopg
    from psycopg_pool import ConnectionPool

    from memlode.storage.sql import Dialect

__all__ = [
    "PgDatabase",
    "connect",
    "describe",
    "open_pool",
    "require_driver",
    "store_key",
    "write_transaction",
]

log = logging.getLogger(__name__)


def require_driver() -> None:
    """Raise ``MissingDependency`` naming the install command when the driver is missing."""
    try:
        import pgvector.psycopg  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise MissingDependency(
            f"the PostgreSQL driver for a postgresql:// store ({exc.name})", INSTALL_HINT
        ) from None


def describe(url: str) -> str:
    """The URL without its password: user@host:port/database, for messages and logs."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(url)
    except Exception:  # a URL libpq cannot parse: say nothing of its contents
        return "the PostgreSQL URL given"
    host = parts.get("host") or "localhost"
    port = f":{parts['port']}" if parts.get("port") else ""
    user = f"{parts['user']}@" if parts.get("user") else ""
    return f"{user}{host}{port}/{parts.get('dbname', '')}"


def _connect_raw(url: str, created_by: str) -> psycopg.Connection[Any]:
    require_driver()
    import psycopg

    try:
        conn = psycopg.connect(url, autocommit=True, row_factory=row_factory)
    except psycopg.Error as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        error = StoreUnreachable if isinstance(exc, psycopg.OperationalError) else StorageError
        raise error(
            f"cannot connect to PostgreSQL at {describe(url)}: {reason}; check the URL and "
            "that the server runs and accepts this user"
        ) from None
    if created_by:
        conn.execute("SELECT set_config('memlode.created_by', %s, false)", (created_by,))
    return conn


def _register_types(conn: psycopg.Connection[Any]) -> None:
    from pgvector.psycopg import register_vector

    register_vector(conn)
    use_json_text(conn)


def connect(url: str, *, created_by: str = "", migrate: bool = True) -> psycopg.Connection[Any]:
    """Open (and by default migrate) the store at ``url``; the caller closes it."""
    conn = _connect_raw(url, created_by)
    try:
        if migrate:
            apply_migrations(conn)
        _register_types(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def open_pool(
    url: str, *, created_by: str = "", min_size: int = 1, max_size: int = 8
) -> ConnectionPool[psycopg.Connection[Any]]:
    """A connection pool for a long-lived process (the MCP server, the resident): migrated once
    before it opens, each connection set up like ``connect``'s."""
    require_driver()
    from psycopg_pool import ConnectionPool

    connect(url, created_by=created_by).close()  # migrate, and fail here if we cannot connect

    def configure(conn: psycopg.Connection[Any]) -> None:
        if created_by:
            conn.execute("SELECT set_config('memlode.created_by', %s, false)", (created_by,))
        _register_types(conn)

    pool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
        url,
        min_size=min_size,
        max_size=max_size,
        kwargs={"autocommit": True, "row_factory": row_factory},
        configure=configure,
        open=True,
    )
    return pool


@contextmanager
def write_transaction(conn: psycopg.Connection[Any]) -> Iterator[psycopg.Connection[Any]]:
    """One write transaction on ``conn``, committed or rolled back whole.

    The outermost one first takes the store's write lock (migration 0006): writers take turns,
    as on SQLite, so the text change log is in commit order and no two writers deadlock. Nested
    use joins the outer transaction as a savepoint (an inner failure the caller handles keeps
    the outer work).
    """
    from psycopg.pq import TransactionStatus

    outermost = conn.info.transaction_status == TransactionStatus.IDLE
    with conn.transaction():
        if outermost:
            conn.execute("SELECT memlode_write_lock()")
        yield conn


class PgDatabase:
    """One connection to a PostgreSQL store plus the transaction helper its repositories use:
    the surface of ``memlode.storage.db.Database`` the engine uses
    (``memlode.storage.store.Store``). ``conn`` takes the repositories' ``?`` SQL
    (``adapter.PgConnection``); ``readonly`` makes ``write()`` fail, as on a read-only SQLite
    file."""

    path: Path | None = None  # no file: backups and repairs of a file do not apply

    def __init__(self, url: str, *, readonly: bool = False, created_by: str = "") -> None:
        self.url = url
        self.created_by = created_by
        self.read_only_reason: str | None = "opened read-only" if readonly else None
        self.conn = PgConnection(connect(url, created_by=created_by, migrate=not readonly))

    @property
    def dialect(self) -> Dialect:
        """PostgreSQL's (``memlode.storage.sql``)."""
        return POSTGRESQL

    @property
    def key(self) -> str:
        """The URL without its password (``memlode.storage.store``)."""
        return store_key(self.url)

    @property
    def display(self) -> str:
        return describe(self.url)

    @property
    def writable(self) -> bool:
        return self.read_only_reason is None

    def size_bytes(self) -> int:
        """The bytes of the store's tables with their indexes and TOAST (its schema's)."""
        row = self.conn.execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm')"
        ).fetchone()
        return int(row[0]) if row is not None else 0

    def reader(self) -> PgConnection:
        """A second connection to the store (migrated already), for another thread."""
        return PgConnection(connect(self.url, created_by=self.created_by, migrate=False))

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> PgDatabase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def write(self) -> Iterator[PgConnection]:
        """One write transaction (``write_transaction``); nested use joins the outer one."""
        if self.read_only_reason is not None:
            raise StorageError(f"cannot write to {self.display}: {self.read_only_reason}")
        with write_transaction(self.conn.raw):
            yield self.conn

    def query(self, sql: str, params: tuple[object, ...] | dict[str, object] = ()) -> list[Any]:
        return self.conn.execute(sql, params).fetchall()

    def one(self, sql: str, params: tuple[object, ...] | dict[str, object] = ()) -> Any:
        return self.conn.execute(sql, params).fetchone()


def store_key(url: str) -> str:
    """``url``'s connection parameters without the password, in a fixed order: the same store
    gives the same key however its URL is spelt (for caches kept per store)."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(url)
    except Exception:  # libpq cannot parse it: connecting has failed already
        return url
    parts.pop("password", None)
    return "postgresql:" + " ".join(f"{k}={parts[k]}" for k in sorted(parts))
