"""graph_ops directly on an engine: the walks and chains the MCP graph tools are built on."""

from __future__ import annotations

import itertools

import pytest

from memlode.engine import Engine
from memlode.engine.graph_ops import get_decision_chain, graph_traverse
from memlode.errors import InvalidInput, NotFound
from memlode.storage import graph as graph_repo
from memlode.storage.values import Node
from memlode.types import Edge, NodeKind, Relationship


def _chain(engine: Engine, n: int) -> list[str]:
    """m0 -> m1 -> ... -> m(n-1), each LEADS_TO the next."""
    ids = [engine.store(f"step {i} of the chain", "decision").id for i in range(n)]
    for a, b in itertools.pairwise(ids):
        engine.associate(a, b, "LEADS_TO")
    return ids


def test_depth_limit_and_direction(engine: Engine) -> None:
    ids = _chain(engine, 5)
    walk = graph_traverse(engine, ids[0], depth=2, direction="out")
    assert [(s.node_id, s.depth) for s in walk] == [(ids[0], 0), (ids[1], 1), (ids[2], 2)]
    assert walk[2].parent == ids[1] and walk[2].relationship == "LEADS_TO"
    assert walk[2].memory is not None and walk[2].memory.content == "step 2 of the chain"
    assert [s.node_id for s in graph_traverse(engine, ids[0], depth=3, direction="in")] == [ids[0]]
    backwards = graph_traverse(engine, ids[4], depth=10, direction="in", strategy="dfs")
    assert [s.node_id for s in backwards] == list(reversed(ids))
    assert [s.node_id for s in graph_traverse(engine, ids[2], depth=0)] == [ids[2]]


def test_limit_relationship_filter_and_unlinked_start(engine: Engine) -> None:
    ids = _chain(engine, 4)
    side = engine.store("a side note").id
    engine.associate(ids[0], side, "EXPLAINS")
    assert len(graph_traverse(engine, ids[0], depth=5, limit=2)) == 2
    only = graph_traverse(engine, ids[0], depth=5, relationships=["EXPLAINS"])
    assert [s.node_id for s in only] == [ids[0], side]
    lonely = engine.store("never linked").id
    assert [s.node_id for s in graph_traverse(engine, lonely)] == [lonely]
    with pytest.raises(NotFound):
        graph_traverse(engine, "missing")
    with pytest.raises(InvalidInput):
        graph_traverse(engine, ids[0], strategy="astar")
    with pytest.raises(InvalidInput):
        graph_traverse(engine, ids[0], relationships=["FRIENDS_WITH"])


def test_walk_skips_code_nodes_unless_asked(engine: Engine) -> None:
    memory = engine.store("auth decisions live here", "decision").id
    with engine.db.write() as conn:
        graph_repo.ensure_memory_node(conn, memory, "auth", engine.namespace)
        graph_repo.upsert_node(conn, Node("file:src/auth.py", NodeKind.FILE, "src/auth.py", "test"))
        graph_repo.add_edge(conn, Edge(memory, "file:src/auth.py", Relationship.EXPLAINS))
    assert [s.node_id for s in graph_traverse(engine, memory)] == [memory]
    everything = graph_traverse(engine, memory, memories_only=False)
    assert [(s.node_id, s.kind) for s in everything] == [
        (memory, "memory"),
        ("file:src/auth.py", "file"),
    ]
    # The file's node also finds its decisions.
    chain = get_decision_chain(engine, "src/auth.py")
    assert [m.id for m in chain.decisions] == [memory]


def test_decision_chain_is_oldest_first_and_limited(engine: Engine) -> None:
    first = engine.store("Cache user profiles in Redis", "decision", tags=["cache"]).id
    engine.store("Cache invalidation is hard; we note it", "insight")
    second = engine.store(
        "Cache user profiles in-process instead", "decision", created_at="2099-01-01"
    ).id
    chain = get_decision_chain(engine, "cache")
    assert [m.id for m in chain.decisions] == [first, second]
    assert [m.id for m in get_decision_chain(engine, "cache", limit=1).decisions] == [second]
    assert get_decision_chain(engine, "cache", namespace="elsewhere").decisions == []
    assert get_decision_chain(engine, "nothing like this").decisions == []
    with pytest.raises(InvalidInput):
        get_decision_chain(engine, "  ")
