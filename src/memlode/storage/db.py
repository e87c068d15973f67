"""Opening the one SQLite database: pragmas in the right order, migrations, short transactions.

Many processes write at once (hooks fire in parallel), so every connection sets
``busy_timeout`` *before* switching to WAL, uses ``synchronous=NORMAL``, and every write runs in
a short ``BEGIN IMMEDIATE`` transaction that is retried on SQLITE_BUSY.

Reads keep working when writes cannot: a database on a read-only file system, in a folder we
cannot write, or on a full disk is opened read-only (``Database.read_only_reason`` says why),
and a write then fails with that reason instead of blocking every command. SQLite errors that
describe a condition (full disk, read-only file, damaged file) become ``StorageError`` with a
sentence that says what to do (``explain``).
"""

from __future__ import annotations

import errno
import logging
import os
import random
import sqlite3
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from memlode.errors import StorageError
from memlode.owner_only import secure_database
from memlode.storage.migrations import MIGRATIONS, apply_migrations
from memlode.storage.sql import SQLITE, Dialect

__all__ = ["BUSY_TIMEOUT_MS", "Database", "connect", "explain", "file_bytes", "fts5_available"]

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


# SQLite's primary result codes (sqlite3.h) for the conditions a user can act on.
SQLITE_READONLY = 8
SQLITE_IOERR = 10
SQLITE_CORRUPT = 11
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14
SQLITE_NOTADB = 26
# Codes after which a database that exists may still be read: it cannot be written here.
_WRITE_REFUSED = {SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN}
# Codes that describe the file or the disk rather than the statement.
_CONDITIONS = {SQLITE_READONLY, SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_NOTADB}
_WRITE_REFUSED_ERRNO = {errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT}


def fts5_available() -> bool:
    """Whether this Python's SQLite has FTS5 (memlode's text index needs it)."""
    try:
        conn = sqlite3.connect(":memory:")
        try:
            conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    return True


def file_bytes(path: Path) -> int:
    """The database's bytes, with its WAL and shared-memory files."""
    try:
        total = path.stat().st_size
        for suffix in ("-wal", "-shm"):
            extra = path.with_name(path.name + suffix)
            if extra.exists():
                total += extra.stat().st_size
        return total
    except OSError as exc:
        raise StorageError(f"cannot stat {path}: {exc.strerror}") from None


def _code(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def explain(exc: sqlite3.Error, path: Path | str) -> str:
    """One sentence for a SQLite error on the database at ``path``: what happened, what to do."""
    code = _code(exc)
    if code == SQLITE_FULL:
        return f"the disk holding {path} is full ({exc}); nothing was written: free some space"
    if code == SQLITE_READONLY:
        return (
            f"{path} cannot be written here ({exc}); reads work, writes need a writable "
            "database file and folder"
        )
    if code in (SQLITE_CORRUPT, SQLITE_NOTADB):
        return (
            f"{path} is damaged ({exc}); run `memlode doctor`, or restore it from a backup "
            "(the file was left as it is)"
        )
    if code == SQLITE_CANTOPEN:
        return f"cannot open {path} ({exc}); its folder must exist and be writable"
    if code == SQLITE_IOERR:
        return f"disk I/O error on {path} ({exc}); the disk may be full, read-only or failing"
    return f"database error on {path}: {exc}"


class _WriteRefused(StorageError):
    """The database exists but cannot be opened for writing here (the caller may read it)."""


def _check_path(path: Path) -> None:
    if path.is_dir():
        raise StorageError(f"database path {path} is a directory; point --db at a file")


def _not_sqlite(exc: sqlite3.DatabaseError) -> bool:
    text = str(exc).lower()
    return "not a database" in text or "file is encrypted" in text


def _uri(path: Path, query: str) -> str:
    """A ``file:`` URI for ``path`` (``?``, ``#`` and ``%`` in a path would end it early)."""
    return f"file:{urllib.parse.quote(os.fsencode(path.absolute()))}?{query}"


def connect(
    path: Path | str, *, migrate: bool = True, readonly: bool = False, immutable: bool = False
) -> sqlite3.Connection:
    """Open (and by default create and migrate) a memlode database.

    ``readonly`` opens it for reading only (no migration); ``immutable`` as well tells SQLite
    that nothing changes the file, so it reads without the WAL's shared memory: the one way to
    read a WAL database on a read-only file system or a full disk (changes still in the WAL are
    not seen).
    """
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
            query = "mode=ro&immutable=1" if immutable else "mode=ro"
            conn = sqlite3.connect(
                _uri(db_path, query), uri=True, isolation_level=None, check_same_thread=False
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
        if readonly and not immutable and _code(exc) in _WRITE_REFUSED and _unshareable(db_path):
            return _immutable(db_path)
        refused = _code(exc) in _WRITE_REFUSED and not readonly and db_path.is_file()
        error = _WriteRefused if refused else StorageError
        raise error(f"cannot open database: {explain(exc, db_path)}") from None
    except OSError as exc:
        if conn is not None:
            conn.close()
        refused = exc.errno in _WRITE_REFUSED_ERRNO and not readonly and db_path.is_file()
        error = _WriteRefused if refused else StorageError
        raise error(f"cannot open database {db_path}: {exc.strerror}") from None
    return conn


def _unshareable(path: Path) -> bool:
    """Is ``path`` a database whose WAL shared memory cannot be made here (read-only folder or
    file system, full disk), so that only an immutable read can open it?"""
    return path.is_file() and (_why_unwritable(path) is not None or _disk_full(path))


_warned_wal: set[Path] = set()


def _immutable(path: Path) -> sqlite3.Connection:
    conn = connect(path, readonly=True, immutable=True)
    wal = Path(f"{path}-wal")
    if path not in _warned_wal and wal.is_file() and wal.stat().st_size > 0:
        _warned_wal.add(path)
        log.warning(
            "%s is read without its WAL file, which cannot be used here: changes not yet "
            "checkpointed into the database are not shown",
            path,
        )
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


def _why_unwritable(path: Path) -> str | None:
    """Why an existing database cannot be written here, from stat() and access() alone."""
    if str(path) == ":memory:" or not path.is_file():
        return None
    folder = path.parent
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return "its file system is read-only"
    except OSError:
        pass
    if not os.access(path, os.W_OK):
        return "the database file is not writable"
    side = [Path(f"{path}{suffix}") for suffix in ("-wal", "-shm")]
    if not os.access(folder, os.W_OK) and not all(os.access(p, os.W_OK) for p in side):
        return "its folder is not writable"  # SQLite must create the WAL and SHM files there
    return None


def _disk_full(path: Path) -> bool:
    try:
        return os.statvfs(path.parent).f_bavail == 0
    except OSError:
        return False


def _open_for_reading(path: Path, reason: str) -> sqlite3.Connection:
    """A read-only connection to a database that cannot be written here, if it is current."""
    conn = connect(path, readonly=True)
    try:
        applied = {int(r[0]) for r in conn.execute("SELECT version FROM schema_migrations")}
    except sqlite3.Error:
        applied = set()
    if not applied >= {version for version, _, _ in MIGRATIONS}:
        conn.close()
        raise StorageError(
            f"{path} needs upgrading by this version of memlode but cannot be written "
            f"({reason}); open it once where it is writable"
        )
    log.info("%s opened read-only: %s", path, reason)
    return conn


class Database:
    """A connection plus the transaction helpers every repository uses.

    A database that cannot be written here (see ``_why_unwritable``, or a write refused while
    opening: a full disk) is opened read-only; ``read_only_reason`` then says why, and
    ``write()`` fails with that reason.
    """

    def __init__(self, path: Path | str, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.read_only_reason: str | None = "opened read-only" if readonly else None
        if readonly:
            self.conn = connect(self.path, readonly=True)
            return
        reason = _why_unwritable(self.path)
        if reason is None:
            try:
                self.conn = connect(self.path)
                return
            except _WriteRefused as exc:
                reason = "the disk is full" if _disk_full(self.path) else str(exc)
        self.conn = _open_for_reading(self.path, reason)
        self.read_only_reason = reason

    @property
    def dialect(self) -> Dialect:
        """SQLite's (``memlode.storage.sql``)."""
        return SQLITE

    @property
    def writable(self) -> bool:
        return self.read_only_reason is None

    @property
    def key(self) -> str | None:
        """The resolved path (``memlode.storage.store``); None for an in-memory database."""
        return None if str(self.path) == ":memory:" else str(self.path.resolve())

    @property
    def display(self) -> str:
        return str(self.path)

    def size_bytes(self) -> int:
        """The database file's bytes (``file_bytes``)."""
        return file_bytes(self.path)

    def reader(self) -> sqlite3.Connection | None:
        """A read-only connection of its own (None for an in-memory database)."""
        return None if str(self.path) == ":memory:" else connect(self.path, readonly=True)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def write(self, *, foreign_keys: bool = True) -> Iterator[sqlite3.Connection]:
        """One short write transaction (``BEGIN IMMEDIATE``), committed or rolled back whole.

        SQLITE_BUSY on BEGIN is retried with jitter; a failure inside the block rolls back.
        ``foreign_keys=False``: SQLite neither checks foreign keys inside nor runs their
        cascades, for bulk inserts whose references the caller checks itself (a check costs
        3-4 us a row: 0.35 s of the stdlib's first code index); no delete inside may rely on a
        cascade. A nested use joins the outer transaction as it is.
        """
        if self.read_only_reason is not None:
            raise StorageError(
                f"cannot write to {self.path}: {self.read_only_reason}; reads work, writes "
                "need a writable database file and folder with free space"
            )
        conn = self.conn
        if conn.in_transaction:  # nested use joins the outer transaction
            yield conn
            return
        if not foreign_keys:  # the pragma is a no-op inside a transaction
            conn.execute("PRAGMA foreign_keys = OFF")
        try:
            with self._transaction(conn) as inside:
                yield inside
        finally:
            if not foreign_keys:
                conn.execute("PRAGMA foreign_keys = ON")

    @contextmanager
    def _transaction(self, conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
        try:
            _retry(lambda: conn.execute("BEGIN IMMEDIATE"))
        except sqlite3.Error as exc:
            raise self._condition(exc) from None
        try:
            yield conn
            _retry(lambda: conn.execute("COMMIT"))
        except BaseException as exc:
            self._rollback()
            if isinstance(exc, sqlite3.Error):
                raise self._condition(exc) from None
            raise

    def _rollback(self) -> None:
        """Roll back what is left of a failed transaction. SQLite has already rolled it back
        itself after some errors (SQLITE_FULL, SQLITE_IOERR, ...); a second ROLLBACK would only
        hide the first error behind "cannot rollback - no transaction is active"."""
        if not self.conn.in_transaction:
            return
        try:
            self.conn.execute("ROLLBACK")
        except sqlite3.Error as exc:
            log.warning("rollback after a failed write failed too: %s", exc)

    def _condition(self, exc: sqlite3.Error) -> BaseException:
        """A full disk, a read-only or damaged file: a StorageError that says so; any other
        SQLite error unchanged (callers may handle constraint errors themselves)."""
        if _code(exc) in (
            SQLITE_FULL,
            SQLITE_READONLY,
            SQLITE_IOERR,
            SQLITE_CORRUPT,
            SQLITE_NOTADB,
        ):
            return StorageError(explain(exc, self.path))
        return exc

    def query(
        self, sql: str, params: tuple[object, ...] | dict[str, object] = ()
    ) -> list[sqlite3.Row]:
        return list(self.conn.execute(sql, params))

    def one(
        self, sql: str, params: tuple[object, ...] | dict[str, object] = ()
    ) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self.conn.execute(sql, params).fetchone()
        return row
