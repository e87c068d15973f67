"""The stored graph: loading by namespace, the centrality cache and its staleness check."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlode.graph import centrality_of, ensure_centrality, load_graph, recompute_centrality
from memlode.storage.db import Database

NOW = "2024-01-01T00:00:00.000000Z"


def add_node(db: Database, node: str, namespace: str) -> None:
    with db.write() as conn:
        conn.execute(
            "INSERT INTO graph_nodes (id, kind, name, namespace, created_at, updated_at)"
            " VALUES (?, 'function', ?, ?, ?, ?)",
            (node, node, namespace, NOW, NOW),
        )


def add_edge(db: Database, source: str, target: str, rel: str = "CALLS") -> None:
    with db.write() as conn:
        conn.execute(
            "INSERT INTO graph_edges (source_id, target_id, relationship, created_at)"
            " VALUES (?, ?, ?, ?)",
            (source, target, rel, NOW),
        )


@pytest.fixture
def db(tmp_path: Path):
    database = Database(tmp_path / "graph.db")
    for node in ("hub", "a", "b", "c"):
        add_node(database, node, "proj")
    add_node(database, "elsewhere", "other")
    for leaf in ("a", "b", "c"):
        add_edge(database, leaf, "hub")
    add_edge(database, "hub", "elsewhere")  # crosses namespaces: not part of proj's graph
    yield database
    database.close()


def test_load_graph_by_namespace(db: Database):
    graph = load_graph(db, "proj")
    assert graph.nodes == ("a", "b", "c", "hub")
    assert {(e.source, e.target) for e in graph.edges} == {("a", "hub"), ("b", "hub"), ("c", "hub")}
    assert len(load_graph(db).nodes) == 5
    assert load_graph(db, "proj", relationships=["IMPORTS"]).edges == ()


def test_centrality_cache_is_recomputed_only_when_the_graph_changes(db: Database):
    run = recompute_centrality(db, "proj")
    assert (run.nodes, run.edges) == (4, 3)
    cached = centrality_of(db, ["hub", "a", "elsewhere"])
    assert set(cached) == {"hub", "a"}
    assert cached["hub"].pagerank > cached["a"].pagerank
    assert cached["hub"].degree == pytest.approx(1.0)
    assert ensure_centrality(db, "proj") is None
    add_node(db, "d", "proj")
    add_edge(db, "d", "a")
    rerun = ensure_centrality(db, "proj")
    assert rerun is not None and rerun.nodes == 5
    assert centrality_of(db, ["d"])["d"].pagerank > 0
