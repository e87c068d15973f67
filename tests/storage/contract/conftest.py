"""The storage contract suite: every test here runs on SQLite and on PostgreSQL.

``store`` is a ``Store`` (``stores.py``): a connection of one backend and its write transaction.
A test calls the repository modules of ``memlode.storage`` on it, the same modules production
code calls (``memories.insert(conn, ...)``), and must get the same answer from both. The
PostgreSQL store is a migrated schema on the session's test server, emptied before each test
(``pg_store_url`` in ``tests/conftest.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.storage.contract.stores import BACKENDS, Store, open_store


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        location = str(tmp_path / "contract.db")
    else:
        location = request.getfixturevalue("pg_store_url")
    with open_store(request.param, location) as opened:
        yield opened
