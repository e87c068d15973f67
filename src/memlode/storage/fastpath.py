"""The store's import-light way in, for short-lived processes (the hooks): open, one short write.

A hook is a fresh process per tool call, so this module avoids ``sqlite3`` (its date/time
adapters import ``datetime`` and ``collections.abc``, ~6 ms), ``json``, ``uuid`` and
``logging``; it opens the database through ``_sqlite3``, the C module behind ``sqlite3``, with
the same rules as ``memlode.storage.db``:

- pragmas in the order ``busy_timeout`` -> WAL -> ``synchronous=NORMAL`` -> foreign keys;
- every write in one short ``BEGIN IMMEDIATE`` transaction, retried with jitter on SQLITE_BUSY.

A missing database or pending migrations take the slow path once: ``memlode.storage.db.connect``
creates and migrates the file. The rows written through it are those of
``memlode.storage.capture``.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
else:
    try:
        import _sqlite3 as sqlite3
    except ImportError:  # pragma: no cover - an interpreter without the split module
        import sqlite3

__all__ = ["BUSY_TIMEOUT_MS", "new_id", "now_ts", "open_db", "write"]

# Five seconds of SQLite's own waiting covers bursts of parallel hooks; past that a transaction
# is retried a few times with jitter (memlode.storage.db uses the same figure).
BUSY_TIMEOUT_MS = 5000
_RETRIES = 8
_MIGRATIONS_DIR = os.path.join(os.path.dirname(__file__), "migrations")


def now_ts() -> str:
    """Now in the stored timestamp format (``memlode.types.format_ts``): fixed width ISO-8601
    UTC with microseconds."""
    t = time.time()
    micros = int((t % 1) * 1_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{micros:06d}Z"


def new_id() -> str:
    """A random UUID4 string, without importing ``uuid`` (which imports ``platform``)."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _latest_migration() -> int:
    try:
        names = os.listdir(_MIGRATIONS_DIR)
    except OSError:
        return -1  # unknown: take the slow path, which knows
    # NNNN_name.sql (or .py), as memlode.storage.migrations names them
    versions = [
        int(n[:4])
        for n in names
        if n.endswith((".sql", ".py")) and n[:4].isdigit() and n[4:5] == "_"
    ]
    return max(versions, default=0)


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _retry(conn: sqlite3.Connection, sql: str) -> None:
    for attempt in range(_RETRIES):
        try:
            conn.execute(sql)
            return
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc) or attempt == _RETRIES - 1:
                raise
            import random  # only on contention: not worth importing on every hook

            time.sleep(0.01 * (2**attempt) * (0.5 + random.random()))


def open_db(path: str) -> sqlite3.Connection:
    """Open the database for a hook; create or migrate it through the storage layer if needed."""
    if os.path.isfile(path) and os.path.getsize(path) > 0:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            _retry(conn, "PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            row = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()
            current = int(row[0]) if row and row[0] is not None else 0
            latest = _latest_migration()
            if latest >= 0 and current >= latest:
                return conn
        except sqlite3.DatabaseError:
            pass
        conn.close()
    from memlode.storage.db import connect  # slow path: create, or apply pending migrations

    return connect(path)


class write:
    """One short ``BEGIN IMMEDIATE`` transaction, retried on busy, rolled back on error.

    A class rather than ``contextlib.contextmanager``: importing contextlib (and functools with
    it) costs a hook process a few milliseconds.
    """

    __slots__ = ("conn", "owner")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.owner = not conn.in_transaction

    def __enter__(self) -> sqlite3.Connection:
        if self.owner:
            _retry(self.conn, "BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if not self.owner:
            return
        if exc_type is not None:
            if self.conn.in_transaction:  # SQLite rolls back itself after SQLITE_FULL, IOERR
                self.conn.execute("ROLLBACK")
        else:
            _retry(self.conn, "COMMIT")
