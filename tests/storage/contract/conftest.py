"""The storage contract suite: every test here runs on SQLite and on PostgreSQL.

``store`` is a ``Store``: a connection, its write transaction and the repository set of one
backend (``memlode.storage.backend.SQLITE``, ``memlode.storage.postgres.repositories.POSTGRES``),
named alike, so that a test written once calls ``store.rows.memories.insert(conn, ...)`` and
must get the same answer from both. The PostgreSQL store is an empty schema on the session's
test server (``pg_url`` in ``tests/conftest.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

BACKENDS = ("sqlite", "postgresql")


@dataclass
class Store:
    """One backend's store as the contract tests see it."""

    backend: str
    location: str  # the SQLite file or the PostgreSQL URL
    rows: Any  # the repository set: attributes named as on memlode.storage.backend.Backend
    conn: Any  # for reads outside a transaction
    write: Callable[[], AbstractContextManager[Any]]  # one write transaction, yielding conn


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        from memlode.storage.db import Database

        path = tmp_path / "contract.db"
        with Database(path) as db:
            yield Store("sqlite", str(path), db.backend, db.conn, db.write)
        return
    url: str = request.getfixturevalue("pg_url")
    from memlode.storage.postgres.connection import PgDatabase
    from memlode.storage.postgres.repositories import POSTGRES

    with PgDatabase(url, created_by="contract-test") as pg:
        yield Store("postgresql", url, POSTGRES, pg.conn, pg.write)
