"""The MCP tools on a PostgreSQL store (every tool runs on either store), checked
by the very tests that check them on SQLite: each test below is imported from its module and runs
again here with ``MEMLODE_DB`` naming a PostgreSQL store, for the server (``memlode mcp`` over
stdio, through the SDK's client) and for the engine the test reads the store with. A tool the
backend cannot serve yet (the code index, docs, the decision chain) answers that it does not
(``tests/mcp/test_pg_store.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.mcp.test_consolidation_tools import (
    test_consolidate_and_its_status,
    test_consolidate_reflect,
    test_creative_and_forget_through_the_tool,
)
from tests.mcp.test_patterns_tools import test_detect_patterns_and_pattern_insights
from tests.mcp.test_stdio_tools import (
    test_memory_tools_change_the_store,
    test_namespace_portability_config_and_system_tools,
)
from tests.mcp.test_supersede_tool import test_linked_memories_handed_over_say_which_is_history

pytestmark = pytest.mark.anyio

__all__ = [
    "test_consolidate_and_its_status",
    "test_consolidate_reflect",
    "test_creative_and_forget_through_the_tool",
    "test_detect_patterns_and_pattern_insights",
    "test_linked_memories_handed_over_say_which_is_history",
    "test_memory_tools_change_the_store",
    "test_namespace_portability_config_and_system_tools",
]


@pytest.fixture(autouse=True)
def _on_postgresql(
    pg_store_url: str, memlode_home: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Every server and engine of these tests opens the PostgreSQL store (autouse fixtures come
    before the others of their scope: the ``store`` engine opens it too); none made the home's
    SQLite database, which any of them would have on the SQLite path."""
    monkeypatch.setenv("MEMLODE_DB", pg_store_url)
    yield
    assert not (memlode_home / "memlode.db").exists()
