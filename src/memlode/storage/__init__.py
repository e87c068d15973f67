"""L1 storage: the connection to a store, numbered migrations and the repositories over them.

``open_store`` opens a store by its location: a SQLite file (``memlode.storage.db.Database``) or
a ``postgresql://`` URL (``memlode.storage.postgres.connection.PgDatabase``, imported only
then); both have the surface of ``memlode.storage.store.Store``. A PostgreSQL store's code index
is a SQLite file of the machine (``code_store_path``). ``Database`` and ``connect``
load on first use, so that the hooks can import the import-light ``memlode.storage.scrub`` (the
redaction every write goes through) without the connection machinery and its imports.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from memlode.storage.db import Database, connect
    from memlode.storage.store import Store

__all__ = ["Database", "code_store", "code_store_path", "connect", "open_store"]


def open_store(location: Path | str, *, readonly: bool = False, created_by: str = "") -> Store:
    """The store at ``location``: a SQLite database file, or a PostgreSQL URL (created and
    migrated when new; ``created_by`` is who stores memories through this connection, recorded
    on PostgreSQL as ``memories.created_by``). ``readonly``: writes fail with a reason."""
    from memlode.config_file import is_server_url

    if isinstance(location, str) and is_server_url(location):
        from memlode.storage.postgres.connection import PgDatabase

        return PgDatabase(str(location).strip(), readonly=readonly, created_by=created_by)
    from memlode.storage.db import Database

    return Database(location, readonly=readonly)


def code_store_path(home: Path, store_key: str) -> Path:
    """The SQLite file of this machine's code index for the PostgreSQL store ``store_key``: a
    team store keeps no code (the index is derived from each machine's checkout and changes with
    every edit), so the code tables of a SQLite store serve it, one file per team store."""
    import hashlib

    return home / "code" / f"{hashlib.sha256(store_key.encode()).hexdigest()[:16]}.db"


def code_store(store: Store, home: Path) -> Database:
    """The store of ``store``'s code index: ``store`` itself when it is SQLite, else this
    machine's SQLite file for it under ``home`` (opened; the caller closes it)."""
    from memlode.storage.db import Database

    if isinstance(store, Database):
        return store
    return Database(code_store_path(home, store.key or ""))


def __getattr__(name: str) -> object:
    if name in ("Database", "connect"):
        from memlode.storage import db

        return getattr(db, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
