"""Contract: ``DashboardRows`` (the reads of ``memlode viz``) gives the same answers on SQLite and
PostgreSQL: a sorted page of memories, a mark that moves when another connection commits, the
best-connected nodes and the edges among them, memory vectors for the projection, a session's
files, memory counts and prompts."""

from __future__ import annotations

from typing import Any

import numpy as np
from tests.storage.contract.stores import open_store

from memlode.storage import capture_session, dashboard, embeddings, graph, memories, sessions
from memlode.storage.values import MemoryFilter, NewMemory, Node
from memlode.types import Edge, NodeKind, Relationship


def _fill(store: Any) -> list[str]:
    ids = []
    with store.write() as conn:
        for i, (text, tags, imp) in enumerate(
            (
                ("why does the build fail?", ["prompt"], 0.2),
                ("The build needs node 20", [], 0.9),
                ("Cache the docker layers", ["ci"], 0.5),
            )
        ):
            memory_id, _ = memories.insert(
                conn,
                NewMemory(
                    text,
                    namespace="p",
                    tags=tags,
                    importance=imp,
                    session_id="s1",
                    source="hook" if i == 0 else "memory",
                    created_at=f"2026-01-0{i + 1}T10:00:00.000000Z",
                ),
            )
            graph.ensure_memory_node(conn, memory_id, text, "p")
            ids.append(memory_id)
        graph.upsert_node(conn, Node("file:/b.py", NodeKind.FILE, "b.py", "p"))
        graph.add_edge(conn, Edge(ids[1], ids[2], Relationship.LEADS_TO, 0.5))
        graph.add_edge(conn, Edge(ids[1], "file:/b.py", Relationship.RELATES_TO))
        vector = np.arange(1, 5, dtype="<f4")
        vector /= np.linalg.norm(vector)
        embeddings.write_vectors(
            conn, [(ids[1], "m", 4, vector.tobytes(), "h", "2026-01-02T10:00:00.000000Z")]
        )
        sessions.start(conn, "s1", "p", "cli", None)
        capture_session.remember_file(conn, "s1", "/b.py", ids[1])
    return ids


def test_the_dashboard_reads(store: Any) -> None:
    first, second, third = _fill(store)
    rows = dashboard
    total, page = rows.select_sorted(store.conn, MemoryFilter(namespace="p"), "importance", 2, 0)
    assert total == 3 and [m.id for m in page] == [second, third]
    assert rows.change_mark(store.conn, "p") == (3, "2026-01-03T10:00:00.000000Z")
    assert rows.change_mark(store.conn, "q") == (0, None)

    nodes = rows.top_nodes(store.conn, "p", [], 10)
    assert nodes[0][:5] == (second, "memory", "The build needs node 20", second, 2)
    assert {n[0] for n in nodes} == {first, second, third, "file:/b.py"}
    assert [n[0] for n in rows.top_nodes(store.conn, "p", ["file"], 10)] == ["file:/b.py"]
    among = rows.edges_among(store.conn, [second, third])
    assert among == [(second, third, "LEADS_TO", 0.5)]

    vectors = rows.memory_vectors(store.conn, "p", 10)
    assert [(v[0], v[5]) for v in vectors] == [(second, 4)]
    assert np.allclose(np.frombuffer(bytes(vectors[0][6]), "<f4")[:2], [0.1826, 0.3651], atol=1e-4)

    assert [p for p, _ in rows.session_files(store.conn, "s1")] == ["/b.py"]
    assert rows.session_memory_counts(store.conn, ["s1", "none"]) == {
        "s1": {"hook": 1, "memory": 2}
    }
    prompts = rows.session_prompts(store.conn, "s1", ("prompt", "instruction"), 10)
    assert [m.id for m in prompts] == [first]
    assert rows.session_prompts(store.conn, "s1", (), 10) == []


def test_the_change_mark_moves_when_another_connection_commits(store: Any) -> None:
    rows = dashboard
    before = rows.data_version(store.conn)
    with open_store(store.backend, store.location) as other, other.write() as conn:
        memories.insert(conn, NewMemory("from another process", namespace="p"))
    assert rows.data_version(store.conn) != before
