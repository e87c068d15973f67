"""Contract: ``GraphRows`` (nodes, typed edges, neighbours, export of memory edges) gives the
same answers on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from memlode.storage import graph, graph_walk, memories
from memlode.storage.values import NewMemory, Node
from memlode.types import Edge, NodeKind, Relationship


def _graph(store: Any) -> tuple[str, str, str]:
    """Two memories of namespace p and one of q as nodes, a file node and a class node."""
    g = graph
    with store.write() as conn:
        ids = []
        for text, ns in (("first memory", "p"), ("second memory", "p"), ("third memory", "q")):
            memory_id, _ = memories.insert(conn, NewMemory(text, namespace=ns))
            g.ensure_memory_node(conn, memory_id, text, ns)
            ids.append(memory_id)
        g.upsert_node(conn, Node("file:/a.py", NodeKind.FILE, "a.py", "p", None, {"path": "/a.py"}))
        g.upsert_node(conn, Node("sym:A", NodeKind.CLASS, "A", "p"))
        edges = [
            Edge(ids[0], ids[1], Relationship.LEADS_TO, 0.5, {"why": "x"}, "2026-01-01T00:00Z"),
            Edge(ids[1], ids[0], Relationship.REINFORCES),
            Edge(ids[0], "file:/a.py", Relationship.RELATES_TO),
            Edge("file:/a.py", "sym:A", Relationship.CONTAINS),
            Edge(ids[2], ids[0], Relationship.SIMILAR_TO, 0.9),
        ]
        for edge in edges:
            assert g.add_edge(conn, edge)
    return ids[0], ids[1], ids[2]


def _key(edge: Edge) -> tuple[str, str, str, float]:
    return edge.source_id, edge.target_id, str(edge.relationship), edge.weight


def test_edges_are_added_once_then_updated_or_kept(store: Any) -> None:
    a, b, _ = _graph(store)
    g = graph
    with store.write() as conn:
        assert not g.add_edge(conn, Edge(a, b, Relationship.LEADS_TO, 0.7, {"why": "y"}))
        assert not g.add_edge(
            conn, Edge(a, b, Relationship.LEADS_TO, 0.1, {"why": "z"}), keep_existing=True
        )
    (edge,) = [e for e in g.edges_of(store.conn, [a]) if e.relationship == Relationship.LEADS_TO]
    assert (edge.weight, edge.properties, edge.created_at) == (
        0.7,
        {"why": "y"},
        "2026-01-01T00:00Z",
    )


def test_edges_of_and_export_of_memory_edges(store: Any) -> None:
    a, b, c = _graph(store)
    g = graph
    assert sorted(_key(e) for e in g.edges_of(store.conn, [b])) == sorted(
        [(a, b, "LEADS_TO", 0.5), (b, a, "REINFORCES", 1.0)]
    )
    assert len(g.edges_of(store.conn, [a, "sym:A"])) == 5
    assert g.edges_of(store.conn, []) == []
    exported = list(g.iter_edges(store.conn))
    assert [_key(e) for e in exported] == [
        (a, b, "LEADS_TO", 0.5),
        (b, a, "REINFORCES", 1.0),
        (c, a, "SIMILAR_TO", 0.9),
    ]
    assert [_key(e) for e in g.iter_edges(store.conn, "q")] == [(c, a, "SIMILAR_TO", 0.9)]
    assert exported[0].properties == {"why": "x"}


def test_neighbours_by_direction_and_relationship(store: Any) -> None:
    a, b, c = _graph(store)
    g = graph

    def seen(*args: Any, **kwargs: Any) -> list[tuple[str, str, str, str]]:
        return [
            (n.node_id, n.kind, n.relationship, n.direction)
            for n in g.neighbors(store.conn, *args, **kwargs)
        ]

    assert seen(a) == [
        (b, "memory", "LEADS_TO", "out"),
        ("file:/a.py", "file", "RELATES_TO", "out"),
        (b, "memory", "REINFORCES", "in"),
        (c, "memory", "SIMILAR_TO", "in"),
    ]
    assert seen(a, direction="in") == [
        (b, "memory", "REINFORCES", "in"),
        (c, "memory", "SIMILAR_TO", "in"),
    ]
    assert seen(a, [Relationship.RELATES_TO, Relationship.SIMILAR_TO]) == [
        ("file:/a.py", "file", "RELATES_TO", "out"),
        (c, "memory", "SIMILAR_TO", "in"),
    ]
    (file_node,) = g.neighbors(store.conn, "sym:A")
    assert (file_node.name, file_node.memory_id, file_node.weight) == ("a.py", None, 1.0)


def test_a_node_upserted_again_takes_the_new_name_and_properties(store: Any) -> None:
    g = graph
    with store.write() as conn:
        g.upsert_node(conn, Node("sym:B", NodeKind.FUNCTION, "b", "p", None, {"line": 1}))
        g.upsert_node(conn, Node("sym:B", NodeKind.FUNCTION, "b2", "p", None, {"line": 2}))
        g.upsert_node(conn, Node("sym:C", NodeKind.FUNCTION, "c", "p"))
        g.add_edge(conn, Edge("sym:C", "sym:B", Relationship.CALLS))
    (callee,) = g.neighbors(store.conn, "sym:C")
    assert (callee.node_id, callee.name) == ("sym:B", "b2")


def test_walks_and_decision_reads(store: Any) -> None:
    """``GraphWalkRows``: neighbours along chosen relationships, a node, a topic's nodes, and the
    decisions that mention a topic literally or hold all its words (stemmed)."""
    from memlode.storage.values import MemoryFilter
    from memlode.types import MemoryType

    first, second, _ = _graph(store)
    walk = graph_walk
    with store.write() as conn:
        decided, _ = memories.insert(
            conn,
            NewMemory(
                "Decided: tokens for authentication expire after an hour (src/Auth.py)",
                memory_type=MemoryType.DECISION,
                namespace="p",
                tags=["Security"],
            ),
        )
        memories.insert(
            conn, NewMemory("Auth tokens are cached", memory_type=MemoryType.CONTEXT, namespace="p")
        )
    near = walk.adjacent(store.conn, first, [], "both", False)
    assert {(n[0], n[4], n[5]) for n in near} == {
        (second, "LEADS_TO", "out"),
        ("file:/a.py", "RELATES_TO", "out"),
        (second, "REINFORCES", "in"),
        (_graph_third(store), "SIMILAR_TO", "in"),
    }
    only = walk.adjacent(store.conn, first, ["LEADS_TO"], "out", True)
    assert [(n[0], n[6]) for n in only] == [(second, 0.5)]
    assert walk.node(store.conn, "sym:A") == ("sym:A", "class", "A")
    assert walk.node(store.conn, "nope") is None
    assert walk.topic_nodes(store.conn, "/a.py") == ["file:/a.py"]
    decisions = MemoryFilter(namespace="p", memory_types=[MemoryType.DECISION])
    assert walk.mentioning_memories(store.conn, decisions, "src/auth.py") == [decided]
    assert walk.mentioning_memories(store.conn, decisions, "security") == [decided]
    assert walk.matching_memories(store.conn, decisions, ["authentication", "token"]) == [decided]
    assert walk.matching_memories(store.conn, decisions, ["authentication", "lunch"]) == []
    assert walk.matching_memories(store.conn, decisions, []) == []


def _graph_third(store: Any) -> str:
    row = store.conn.execute(
        "SELECT id FROM memories WHERE content = ?", ("third memory",)
    ).fetchone()
    return str(row[0])
