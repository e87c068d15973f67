"""Opening the one SQLite database: pragmas in the right order, migrations, short transactions.

Many processes write at once (hooks fire in parallel), so every connection sets
``busy_timeout`` *before* switching to WAL, uses ``synchronous=NORMAL``, and every write runs in
a short ``BEGIN IMMEDIATE`` transaction that is retried on SQLITE_BUSY.
"""

from __future__ import annotations

import logging
import random
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from memlode.errors import StorageError
from memlode.owner_only import secure_database
from memlode.storage.migrations import apply_migrations

__all__ = ["BUSY_TIMEOUT_MS", "Database", "connect"]

log = logging.getLogger(__name__)

T = TypeVar("T")

# Five seconds of SQLite's own waiting covers bursts of parallel hooks; past that we retry the
# whole transaction a few times with jitter before giving up.
BUSY_TIMEOUT_MS = 5000
_WRITE_RETRIES = 8

# Never open the database, its WAL or its shared-memory file other than through SQLite. On
# POSIX, closing *any* descriptor of a file drops every fcntl lock the process holds on it, so a
# plain ``open(db).read(16)`` in a process that already has connections (the MCP server opens
# one per thread) silently releases their locks: another process may then checkpoint and reset
# the WAL under them and acknowledged writes vanish (SQLite's "How To Corrupt An SQLite Database
# File", section 2.2). So the checks below use stat() and SQLite's own reads only.


def _check_path(path: Path) -> None:
    if path.is_dir():
        raise StorageError(f"database path {path} is a directory; point --db at a file")


def _not_sqlite(exc: sqlite3.DatabaseError) -> bool:
    text = str(exc).lower()
    return "not a database" in text or "file is encrypted" in text


def connect(
    path: Path | str, *, migrate: bool = True, readonly: bool = False
) -> sqlite3.Connection:
    """Open (and by default create and migrate) a memlode database."""
    db_path = Path(path)
    if str(db_path) != ":memory:":
        _check_path(db_path)
        if not readonly:
            try:
                db_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            except OSError as exc:
                raise StorageError(
                    f"cannot create the folder for {db_path}: {exc.strerror}; "
                    "set MEMLODE_HOME or --db to a writable place"
                ) from None
    conn: sqlite3.Connection | None = None
    try:
        if readonly:
            conn = sqlite3.connect(
                f"file:{db_path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
            )
        else:
            conn = sqlite3.connect(str(db_path), isolation_level=None, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        # SQLite reads the header here: a file that is not a database fails with SQLITE_NOTADB.
        conn.execute("PRAGMA schema_version")
        if not readonly and str(db_path) != ":memory:":
            # Owner-only before WAL mode: SQLite gives the WAL and SHM files the db's mode.
            secure_database(db_path)
        if not readonly:
            _retry(lambda: conn.execute("PRAGMA journal_mode=WAL"))
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        if migrate and not readonly:
            apply_migrations(conn)
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        if _not_sqlite(exc):
            raise StorageError(
                f"{db_path} is not a SQLite database; point --db at a memlode database"
            ) from None
        raise StorageError(f"cannot open database {db_path}: {exc}") from None
    except OSError as exc:
        if conn is not None:
            conn.close()
        raise StorageError(f"cannot open database {db_path}: {exc.strerror}") from None
    return conn


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _retry(fn: Callable[[], T]) -> T:
    for attempt in range(_WRITE_RETRIES):
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc) or attempt == _WRITE_RETRIES - 1:
                raise
            time.sleep(0.01 * (2**attempt) * (0.5 + random.random()))
    raise AssertionError("unreachable")


class Database:
    """A connection plus the transaction helpers every repository uses."""

    def __init__(self, path: Path | str, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.conn = connect(self.path, readonly=readonly)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One short write transaction (``BEGIN IMMEDIATE``), committed or rolled back whole.

        SQLITE_BUSY on BEGIN is retried with jitter; a failure inside the block rolls back.
        """
        conn = self.conn
        if conn.in_transaction:  # nested use joins the outer transaction
            yield conn
            return
        _retry(lambda: conn.execute("BEGIN IMMEDIATE"))
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        else:
            _retry(lambda: conn.execute("COMMIT"))

    def query(
        self, sql: str, params: tuple[object, ...] | dict[str, object] = ()
    ) -> list[sqlite3.Row]:
        return list(self.conn.execute(sql, params))

    def one(
        self, sql: str, params: tuple[object, ...] | dict[str, object] = ()
    ) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self.conn.execute(sql, params).fetchone()
        return row
