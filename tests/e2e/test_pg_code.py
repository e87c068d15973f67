"""The code commands on a PostgreSQL store (``--db postgresql://...``), checked by the tests that
check them on SQLite: each test below is imported from tests/e2e/test_code_cli.py and runs again
with ``MEMLODE_DB`` naming a PostgreSQL store. A team store keeps no code: the index lives in a
SQLite file of this machine under ``$MEMLODE_HOME/code`` (``memlode.storage.code_store``), and
the server gets no code table; memories (hook edits that heat the map, the graph signal's
memories) stay on the server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from tests.e2e.test_code_cli import (
    project,
    test_graph_path_components_and_layers,
    test_index_then_query_the_project,
    test_map_heat_from_hook_edits_and_focus,
)

pytestmark = pytest.mark.heavy  # tests/conftest.py: run first

__all__ = [
    "project",
    "test_graph_path_components_and_layers",
    "test_index_then_query_the_project",
    "test_map_heat_from_hook_edits_and_focus",
]


def _ok(result: Any) -> Any:
    assert result.returncode == 0, result.stderr
    return result.json()


def test_graph_recompute_ranks_the_team_memory_graph(
    cli: Any, project: Path, pg_store_url: str
) -> None:
    """``graph recompute`` on a team store ranks the code graph here and the memory graph on
    the server; recall's graph signal reads the server's."""
    _ok(cli("index", "--json", cwd=project))
    ids = [
        _ok(cli("store", text, "--json", cwd=project))["id"]
        for text in (
            "Decision: store sessions in Redis for horizontal scaling",
            "Pattern: Redis keys are prefixed with the service name",
            "Insight: Redis eviction policy must be noeviction for sessions",
        )
    ]
    for other in ids[1:]:
        assert cli("associate", ids[0], other, "-r", "LEADS_TO", cwd=project).returncode == 0
    _ok(cli("graph", "recompute", "--json", cwd=project))
    with psycopg.connect(pg_store_url) as conn:
        ranked = conn.execute(
            "SELECT count(*) FROM graph_centrality c JOIN graph_nodes n ON n.id = c.node_id"
            " WHERE n.kind = 'memory'"
        ).fetchone()
    assert ranked == (3,)
    hits = _ok(cli("search", "Redis sessions", "--explain", "--json", cwd=project))
    graph = {h["id"]: h["signals"]["graph"] for h in hits}
    assert all(graph[i] > 0 for i in ids)
    assert max(graph[i] for i in ids[1:]) > graph[ids[0]]


@pytest.fixture(autouse=True)
def _on_postgresql(
    pg_store_url: str, memlode_home: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    monkeypatch.setenv("MEMLODE_DB", pg_store_url)
    yield
    assert not (memlode_home / "memlode.db").exists()
    assert list((memlode_home / "code").glob("*.db")), "the code index is a file of this machine"
    with psycopg.connect(pg_store_url) as conn:
        tables = conn.execute(
            "SELECT count(*) FROM information_schema.tables"
            " WHERE table_schema = current_schema() AND table_name LIKE 'code%'"
        ).fetchone()
    assert tables == (0,)
