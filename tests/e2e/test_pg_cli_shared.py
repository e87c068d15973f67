"""The commands that run on a PostgreSQL store (``memlode.cli.common.POSTGRES_COMMANDS``), checked
by the very tests that check them on SQLite: each test below is imported from its module and runs
again here with ``MEMLODE_DB`` naming a PostgreSQL store for every ``memlode`` process it starts
(a ``--db`` the test gives itself, a SQLite copy, still wins)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.e2e.test_cli_foundation import test_a_session_with_every_command
from tests.e2e.test_recall_cli import (
    test_embed_reembed_and_explained_search,
    test_reembed_stale_only_keeps_current_vectors,
    test_weights_round_trip_and_bad_input,
)

__all__ = [
    "test_a_session_with_every_command",
    "test_embed_reembed_and_explained_search",
    "test_reembed_stale_only_keeps_current_vectors",
    "test_weights_round_trip_and_bad_input",
]


@pytest.fixture(autouse=True)
def _on_postgresql(
    pg_store_url: str, memlode_home: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Every process of these tests opens the PostgreSQL store; none made the home's SQLite
    database, which any of them would have on the SQLite path."""
    monkeypatch.setenv("MEMLODE_DB", pg_store_url)
    yield
    assert not (memlode_home / "memlode.db").exists()
