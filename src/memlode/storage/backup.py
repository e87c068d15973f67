"""Copies of a store through SQLite's online backup API, and the check that a file is one.

``sqlite3.Connection.backup`` copies pages under SQLite's own locking. Copied in one step, the
source is read in one read transaction: a consistent snapshot holding every transaction that
committed before it began, while other processes go on writing (WAL readers do not block
writers). Into a live store the copy is one write transaction, so a process that has the store
open sees the old content or the new, never a file swapped under it. Nothing here opens a
database, WAL or SHM file by other means (see ``storage/db.py`` for why that loses writes).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from memlode.errors import StorageError
from memlode.owner_only import FILE_MODE
from memlode.storage.migrations import MIGRATIONS

__all__ = [
    "StoreInfo",
    "check",
    "copy_pages",
    "inspect_store",
    "invalidate_copies_of",
    "match_page_size",
    "memory_count",
    "new_private_file",
    "remove_database_file",
    "schema_versions",
    "scratch_database",
    "scratch_path",
    "settle_journal",
]

# SQLite names its side files after the database's path.
_SIDE_FILES = ("-journal", "-wal", "-shm")


@dataclass(slots=True)
class StoreInfo:
    """What a memlode database file holds, read without changing it."""

    path: Path
    versions: list[int]  # applied migrations
    integrity: list[str]  # PRAGMA integrity_check: ["ok"] when it passes
    memories: int
    page_size: int
    bytes: int
    unknown: list[int] = field(default_factory=list)  # migrations this memlode does not know

    @property
    def version(self) -> int:
        return max(self.versions, default=0)

    @property
    def ok(self) -> bool:
        return self.integrity == ["ok"]

    def to_dict(self) -> dict[str, object]:
        return {
            "path": str(self.path),
            "schema_version": self.version,
            "integrity": "ok" if self.ok else self.integrity,
            "memories": self.memories,
            "bytes": self.bytes,
        }


def inspect_store(path: Path) -> StoreInfo:
    """Open ``path`` read-only and read its integrity, migrations and size.

    Raises ``StorageError`` when it is missing, not a SQLite database or not memlode's."""
    if not path.exists():
        raise StorageError(f"{path} does not exist; give a file written by `memlode backup`")
    if not path.is_file():
        raise StorageError(f"{path} is not a file; give a file written by `memlode backup`")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise StorageError(f"cannot open {path}: {exc}") from None
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "schema_migrations" not in tables or "memories" not in tables:
            raise StorageError(f"{path} is a SQLite database but not a memlode store")
        versions = sorted(int(r[0]) for r in conn.execute("SELECT version FROM schema_migrations"))
        integrity = [str(r[0]) for r in conn.execute("PRAGMA integrity_check")]
        memories = int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])
        page_size = int(conn.execute("PRAGMA page_size").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        text = str(exc).lower()
        if "not a database" in text or "file is encrypted" in text:
            raise StorageError(f"{path} is not a SQLite database") from None
        raise StorageError(f"cannot read {path}: {exc}") from None
    finally:
        conn.close()
    known = {v for v, _, _ in MIGRATIONS}
    unknown = [v for v in versions if v not in known]
    return StoreInfo(path, versions, integrity, memories, page_size, path.stat().st_size, unknown)


def new_private_file(path: Path) -> None:
    """Create ``path`` empty and owner-only (refusing one that exists), for SQLite to fill:
    SQLite then gives its journal the same mode."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    os.close(fd)
    os.chmod(path, FILE_MODE)  # the umask may have taken bits away, never added


def scratch_path(beside: Path, purpose: str) -> Path:
    """A name for a temporary database next to ``beside`` (same folder, same file system)."""
    return beside.parent / f".{beside.name}.{purpose}-{os.getpid()}.tmp"


def remove_database_file(path: Path) -> None:
    """Delete a temporary database (closed) and any side file SQLite left next to it."""
    for name in (path, *(Path(f"{path}{s}") for s in _SIDE_FILES)):
        with contextlib.suppress(FileNotFoundError):
            name.unlink()


@contextlib.contextmanager
def scratch_database(beside: Path, purpose: str) -> Iterator[tuple[Path, sqlite3.Connection]]:
    """An owner-only temporary database next to ``beside``, in rollback-journal mode, removed
    afterwards unless the caller moved it away."""
    path = scratch_path(beside, purpose)
    remove_database_file(path)  # left by a killed run with this pid
    new_private_file(path)
    conn = sqlite3.connect(str(path), isolation_level=None)
    try:
        yield path, conn
    finally:
        conn.close()
        remove_database_file(path)


def copy_pages(source: sqlite3.Connection, target: sqlite3.Connection) -> None:
    """Copy the whole database of ``source`` over ``target``'s, in one step (see the module
    docstring). A busy target is waited for (Python retries the step while SQLite says busy)."""
    source.backup(target, pages=-1)


def settle_journal(conn: sqlite3.Connection) -> None:
    """Make a copied database self-contained: the copy carries its source's WAL flag, and a
    backup file must be one file."""
    conn.execute("PRAGMA journal_mode=DELETE")


def check(conn: sqlite3.Connection, pragma: str = "integrity_check") -> list[str]:
    """SQLite's own check (``integrity_check`` or ``quick_check``): ["ok"] when sound."""
    if pragma not in ("integrity_check", "quick_check"):
        raise ValueError(f"not a check: {pragma}")
    return [str(r[0]) for r in conn.execute(f"PRAGMA {pragma}")]


def memory_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])


def schema_versions(conn: sqlite3.Connection) -> list[int]:
    return [int(r[0]) for r in conn.execute("SELECT version FROM schema_migrations")]


def match_page_size(target: sqlite3.Connection, source: sqlite3.Connection) -> None:
    """Give ``target`` the page size of ``source`` (the backup API cannot write into a WAL
    database of another page size)."""
    page_size = int(source.execute("PRAGMA page_size").fetchone()[0])
    if int(target.execute("PRAGMA page_size").fetchone()[0]) != page_size:
        target.execute(f"PRAGMA page_size = {page_size}")
        target.execute("VACUUM")


def invalidate_copies_of(conn: sqlite3.Connection, live: sqlite3.Connection) -> None:
    """In one transaction on ``conn``, mark stale every derived copy ``live`` has seen."""
    from memlode.storage import derived

    seen = derived.copy_marks(live)
    conn.execute("BEGIN IMMEDIATE")
    derived.invalidate_copies(conn, seen)
    conn.execute("COMMIT")
