"""What the engine uses of an open store, whichever database holds it.

``memlode.storage.open_store`` opens one: a ``memlode.storage.db.Database`` for a SQLite file,
a ``memlode.storage.postgres.connection.PgDatabase`` for a ``postgresql://`` URL. Both have the
surface below; the repositories take ``conn`` (or the connection ``write()`` yields) and ask
its dialect where the two differ (``memlode.storage.sql``).

``path`` is the SQLite file (None on PostgreSQL): code that needs a file (its size, a backup,
a repair) asks for it and says so when there is none. ``key`` names the store for what a
process keeps per store (the in-memory text index, the vector index and its mirror under
``$MEMLODE_HOME/cache``): the resolved path, or the URL without its password; None for an
in-memory SQLite database, which no second connection can reach.

Only for type checking: nothing imports this module at run time.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from memlode.storage.sql import Connection, Dialect, Row

__all__ = ["Store"]


class Store(Protocol):
    """An open store: one connection, its write transactions, and what names it."""

    conn: Connection
    read_only_reason: str | None

    @property
    def dialect(self) -> Dialect:
        """The SQL of this store's database where the two differ, and its name
        (``memlode.storage.sql``): the same as ``dialect_of(self.conn)``."""
        ...

    @property
    def path(self) -> Path | None:
        """The SQLite database file; None when the store is on a server."""
        ...

    @property
    def key(self) -> str | None:
        """The store's identity for per-process and cached copies of it (see the module)."""
        ...

    @property
    def display(self) -> str:
        """Where the store is, for messages (never a password)."""
        ...

    @property
    def writable(self) -> bool: ...

    def write(self) -> AbstractContextManager[Connection]:
        """One write transaction, committed or rolled back whole."""
        ...

    def size_bytes(self) -> int:
        """What the store takes on disk (the SQLite file, or the server's tables of it)."""
        ...

    def reader(self) -> Connection | None:
        """A second, read-only connection to the same store (the caller closes it), for work
        on another thread; None when there can be none (an in-memory database)."""
        ...

    def query(self, sql: str, params: tuple[object, ...] | dict[str, object] = ()) -> list[Row]: ...

    def one(self, sql: str, params: tuple[object, ...] | dict[str, object] = ()) -> Row | None: ...

    def close(self) -> None: ...

    def __enter__(self) -> Any: ...

    def __exit__(self, *exc: object) -> None: ...
