"""Opening one backend's store for the contract suite, in the test process or in a worker
process of a concurrency test (which gets only the backend's name and the store's location)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any

__all__ = ["BACKENDS", "Store", "open_store"]

BACKENDS = ("sqlite", "postgresql")


@dataclass
class Store:
    """One backend's store as the contract tests see it."""

    backend: str
    location: str  # the SQLite file or the PostgreSQL URL
    conn: Any  # for reads outside a transaction
    write: Callable[[], AbstractContextManager[Any]]  # one write transaction, yielding conn


@contextmanager
def open_store(backend: str, location: str, created_by: str = "contract-test") -> Iterator[Store]:
    """The store at ``location`` (created and migrated when new), closed on exit."""
    if backend == "sqlite":
        from memlode.storage.db import Database

        with Database(location) as db:
            yield Store(backend, location, db.conn, db.write)
        return
    from memlode.storage.postgres.connection import PgDatabase

    with PgDatabase(location, created_by=created_by) as pg:
        yield Store(backend, location, pg.conn, pg.write)
