"""Contract: conversation context (``TurnContextRows``) and the creative cycle's rows
(``SimilarityLinkRows``) give the same answers on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import numpy as np

from memlode.storage import embeddings, graph, memories, recall_rows, similarity_links, turn_context
from memlode.storage.values import NewMemory
from memlode.types import Edge, Relationship


def _turns(store: Any, session: str, n: int, source: str = "conversation") -> list[str]:
    ids = []
    with store.write() as conn:
        for i in range(n):
            memory_id, _ = memories.insert(
                conn,
                NewMemory(f"{session} turn {i}", namespace="p", source=source, session_id=session),
            )
            ids.append(memory_id)
    return ids


def test_each_turn_gets_its_neighbours_once(store: Any) -> None:
    ids = _turns(store, "s1", 4)
    _turns(store, "s1", 1, source="memory")  # not a conversation: no context, not in order
    other = _turns(store, "s2", 2)
    tc = turn_context
    with store.write() as conn:
        assert tc.refresh_context(conn, ["s1", "s2", "s1"]) == 6
        assert tc.refresh_context(conn, ["s1"]) == 0  # nothing changed
    assert tc.session_orders(store.conn, ["s1", "s2", "none"]) == {
        "s1": ids,
        "s2": other,
        "none": [],
    }
    # the context is searchable text: the change log saw the rows change
    rows = {r[1]: r for r in recall_rows.candidate_rows(store.conn, ids)}
    assert set(rows) == set(ids)


def test_creative_rows(store: Any) -> None:
    with store.write() as conn:
        ids = [
            memories.insert(
                conn,
                NewMemory(
                    f"text {i}",
                    namespace="p",
                    source="consolidation" if i == 3 else "memory",
                    session_id="s",
                ),
            )[0]
            for i in range(4)
        ]
        other, _ = memories.insert(conn, NewMemory("elsewhere", namespace="q"))
        vectors = [np.eye(4, dtype="<f4")[i].tobytes() for i in range(4)]
        embeddings.write_vectors(conn, [(ids[i], "m", 4, vectors[i], "h", "t") for i in range(4)])
        embeddings.write_vectors(conn, [(other, "m", 4, vectors[0], "h", "t")])
        embeddings.write_vectors(conn, [(ids[0], "m", 4, vectors[1], "h2", "t2")])
        for memory_id in ids:
            graph.ensure_memory_node(conn, memory_id, "n", "p")
        graph.add_edge(conn, Edge(ids[0], ids[1], Relationship.SIMILAR_TO, 0.8, {"by": "creative"}))
        graph.add_edge(conn, Edge(ids[1], ids[2], Relationship.SIMILAR_TO, 0.7))
    sl = similarity_links
    assert sl.vector_models(store.conn, "p") == [("m", 4, 4)]
    assert sl.vector_models(store.conn, "nobody") == []
    got = sl.namespace_vectors(store.conn, "p", "m", 4, "consolidation")
    assert [(r[1], bytes(r[2]), r[3], r[4], r[5]) for r in got] == [
        (ids[0], vectors[1], "context", "memory", "s"),  # replaced in place: its rowid stays
        (ids[1], vectors[1], "context", "memory", "s"),
        (ids[2], vectors[2], "context", "memory", "s"),
    ]
    assert sl.max_vector_rowid(store.conn, "p", "m", 4) == max(
        int(r[0]) for r in sl.namespace_vectors(store.conn, "p", "m", 4, "")
    )
    assert sl.max_vector_rowid(store.conn, "p", "other", 4) == 0
    assert sl.memory_texts(store.conn, [ids[0], "nope"]) == {ids[0]: "text 0"}
    assert sl.linked_by_creative(store.conn, "p", "SIMILAR_TO") == [(ids[0], ids[1], 0.8)]
    with store.write() as conn:
        assert sl.delete_edges(conn, "SIMILAR_TO", [(ids[0], ids[1]), (ids[2], ids[3])]) == 1
    assert sl.linked_by_creative(store.conn, "p", "SIMILAR_TO") == []
