"""The commands that run on a PostgreSQL store (all but those declared ``sqlite_only``), checked
by the very tests that check them on SQLite: each test below is imported from its module and runs
again here with ``MEMLODE_DB`` naming a PostgreSQL store for every ``memlode`` process it starts
(a ``--db`` the test gives itself, a SQLite copy, still wins): sessions, weights, embeddings,
transcript ingest, memory files and docs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.e2e.test_cli_foundation import test_a_session_with_every_command
from tests.e2e.test_ingest_cli import (
    test_appending_and_reingesting_through_the_cli,
    test_ingest_a_project_folder_with_subagents,
    test_ingest_real_transcripts_then_search,
    test_missing_file_is_a_one_line_error_and_stores_nothing,
)
from tests.e2e.test_recall_cli import (
    test_embed_reembed_and_explained_search,
    test_reembed_stale_only_keeps_current_vectors,
    test_weights_round_trip_and_bad_input,
)
from tests.engine.conftest import project
from tests.engine.test_docs_cli import (
    test_docs_add_list_remove,
    test_docs_index_json_then_skip,
    test_memory_get_store_search,
    test_watch_stops_cleanly_on_ctrl_c,
)

pytestmark = pytest.mark.heavy  # tests/conftest.py: run first

__all__ = [
    "project",
    "test_a_session_with_every_command",
    "test_appending_and_reingesting_through_the_cli",
    "test_docs_add_list_remove",
    "test_docs_index_json_then_skip",
    "test_embed_reembed_and_explained_search",
    "test_ingest_a_project_folder_with_subagents",
    "test_ingest_real_transcripts_then_search",
    "test_memory_get_store_search",
    "test_missing_file_is_a_one_line_error_and_stores_nothing",
    "test_reembed_stale_only_keeps_current_vectors",
    "test_watch_stops_cleanly_on_ctrl_c",
    "test_weights_round_trip_and_bad_input",
]


@pytest.fixture
def memory_count(pg_store_url: str) -> Any:
    """How many memories the PostgreSQL store holds (the ingest tests' count, read there)."""
    import psycopg

    def count() -> int:
        with psycopg.connect(pg_store_url) as conn:
            row = conn.execute("SELECT count(*) FROM memories").fetchone()
        return int(row[0]) if row else 0

    return count


@pytest.fixture(autouse=True)
def _on_postgresql(
    pg_store_url: str, memlode_home: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Every process of these tests opens the PostgreSQL store; none made the home's SQLite
    database, which any of them would have on the SQLite path."""
    monkeypatch.setenv("MEMLODE_DB", pg_store_url)
    yield
    assert not (memlode_home / "memlode.db").exists()
