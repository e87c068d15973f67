"""Contract: what recall reads (``RecallRows``, ``RecallGraphRows``) and the graph as its
algorithms read and cache it (``GraphStateRows``) give the same answers on SQLite and
PostgreSQL."""

from __future__ import annotations

import json
from typing import Any

from memlode.storage import (
    embeddings,
    graph,
    graph_state,
    memories,
    recall_graph,
    recall_rows,
    store_settings,
)
from memlode.storage.values import NewMemory, Node
from memlode.types import Edge, NodeKind, Relationship


def _tuples(rows: Any) -> list[tuple[Any, ...]]:
    """Rows as sorted plain tuples (SQLite hands out ``sqlite3.Row`` objects)."""
    return sorted(tuple(r) for r in rows)


def _linked(store: Any) -> list[str]:
    """Four memories of namespace p (the last a question) and one of q, linked."""
    ids = []
    with store.write() as conn:
        for i, (text, ns) in enumerate(
            [
                ("alpha", "p"),
                ("beta", "p"),
                ("gamma", "p"),
                ("is it delta?  \n", "p"),
                ("other", "q"),
            ]
        ):
            memory_id, _ = memories.insert(
                conn,
                NewMemory(
                    text,
                    namespace=ns,
                    tags=[f"t{i}"],
                    metadata={"i": i},
                    session_id="s",
                    importance=0.1 * (i + 1),
                    created_at=f"2026-01-0{i + 1}T00:00:00.000000Z",
                ),
            )
            graph.ensure_memory_node(conn, memory_id, text, ns)
            ids.append(memory_id)
        graph.upsert_node(conn, Node("file:/x.py", NodeKind.FILE, "x.py", "p"))
        for source, target, rel, weight in [
            (0, 1, Relationship.LEADS_TO, 0.5),
            (2, 0, Relationship.SIMILAR_TO, 0.9),
            (0, 3, Relationship.SUMMARIZES, 1.0),
            (4, 1, Relationship.RELATES_TO, 0.2),
        ]:
            graph.add_edge(conn, Edge(ids[source], ids[target], rel, weight))
        graph.add_edge(conn, Edge(ids[1], "file:/x.py", Relationship.RELATES_TO))
    return ids


def store_author(store: Any) -> str:
    return "" if store.backend == "sqlite" else "contract-test"


def test_candidate_rows_carry_what_recall_scores(store: Any) -> None:
    ids = _linked(store)
    rows = sorted(
        recall_rows.candidate_rows(store.conn, [ids[3], ids[0], "nope"]),
        key=lambda r: r[1],
    )
    by_id = {r[1]: r for r in rows}
    assert set(by_id) == {ids[0], ids[3]}
    alpha, delta = by_id[ids[0]], by_id[ids[3]]
    assert list(alpha[2:5]) == ["context", 0.1, 1.0]
    assert json.loads(alpha[5]) == ["t0"] and json.loads(alpha[10]) == {"i": 0}
    assert list(alpha[6:10]) == ["p", "memory", "s", "2026-01-01T00:00:00.000000Z"]
    assert alpha[11] == store_author(store)  # who stored it: the connection's, or "" on SQLite
    assert (bool(alpha[12]), bool(delta[12])) == (False, True)  # a question, white space aside
    assert int(alpha[0]) < int(delta[0])  # rowids in insertion order
    assert list(recall_rows.candidate_rows(store.conn, [])) == []


def test_token_states_by_id(store: Any) -> None:
    ids = _linked(store)
    with store.write() as conn:
        embeddings.write_vectors(
            conn, [(ids[0], "m", 2, b"\x00\x00\x80?\x00\x00\x00\x00", "h", "t")]
        )
        embeddings.write_states(conn, [(ids[0], "m", b"\x05\x06")])
    got = recall_rows.token_states(store.conn, [ids[0], ids[1]])
    assert [(r[0], r[1], bytes(r[2])) for r in got] == [(ids[0], "m", b"\x05\x06")]


def test_the_graph_recall_reads(store: Any) -> None:
    ids = _linked(store)
    rg = recall_graph
    assert rg.has_memory_edges(store.conn, "p") and rg.has_memory_edges(store.conn, None)
    assert not rg.has_memory_edges(store.conn, "nobody")
    assert rg.linked_memories(store.conn, [ids[0]]) == sorted(
        [ids[3], ids[2], ids[1]], key=lambda i: {ids[3]: 0, ids[2]: 1, ids[1]: 2}[i]
    )
    assert rg.linked_memories(store.conn, [ids[0]], skip=["SUMMARIZES"], limit=1) == [ids[2]]
    assert rg.linked_memories(store.conn, []) == []
    assert _tuples(rg.memory_degrees(store.conn, ids)) == sorted(
        [(ids[0], 3), (ids[1], 3), (ids[2], 1), (ids[3], 1), (ids[4], 1)]
    )
    assert _tuples(rg.memory_degrees(store.conn, ids[:2], skip=["RELATES_TO"])) == sorted(
        [(ids[0], 3), (ids[1], 1)]
    )


def test_graph_state_reads_and_the_centrality_cache(store: Any) -> None:
    ids = _linked(store)
    gs = graph_state
    assert sorted(gs.node_ids(store.conn, "p", None)) == sorted([*ids[:4], "file:/x.py"])
    assert gs.node_ids(store.conn, "p", ["file"]) == ["file:/x.py"]
    assert len(gs.node_ids(store.conn, None, None)) == 6
    edges = _tuples(gs.edge_rows(store.conn, "p", None))
    assert len(edges) == 4 and (ids[0], ids[1], "LEADS_TO", 0.5) in edges
    assert [tuple(r) for r in gs.edge_rows(store.conn, "p", ["SIMILAR_TO"])] == [
        (ids[2], ids[0], "SIMILAR_TO", 0.9)
    ]
    before = gs.fingerprint_rows(store.conn, "p")
    assert before[0][0] == 5 and before[1][0] == 4 and abs(before[1][2] - 3.4) < 1e-9
    with store.write() as conn:
        graph.add_edge(conn, Edge(ids[1], ids[2], Relationship.LEADS_TO))
    assert gs.fingerprint_rows(store.conn, "p") != before
    with store.write() as conn:
        gs.write_centrality(
            conn,
            [(ids[0], 0.5, 0.25, 3.0, 1, "t"), ("file:/x.py", 0.1, 0.0, 1.0, None, "t")],
            "centrality:p",
            "fp1",
        )
        gs.write_centrality(conn, [(ids[0], 0.6, 0.25, 3.0, 2, "t2")], "centrality:p", "fp2")
    assert _tuples(gs.centrality_rows(store.conn, [ids[0], "file:/x.py"])) == sorted(
        [(ids[0], 0.6, 0.25, 3.0, 2), ("file:/x.py", 0.1, 0.0, 1.0, None)]
    )
    assert store_settings.get_setting(store.conn, "centrality:p") == "fp2"
    assert _tuples(recall_graph.memory_centrality(store.conn, [ids[0], ids[1]])) == [
        (ids[0], 0.6, 0.25, 3.0, 2)
    ]


def test_no_ids_and_no_rows_ask_nothing(store: Any) -> None:
    ids = _linked(store)
    assert recall_rows.token_states(store.conn, []) == []
    assert recall_graph.memory_centrality(store.conn, []) == []
    assert recall_graph.memory_degrees(store.conn, [], skip=["RELATES_TO"]) == []
    assert list(graph_state.centrality_rows(store.conn, [])) == []
    with store.write() as conn:
        graph_state.write_centrality(conn, [], "centrality:q", "fp0")
    assert store_settings.get_setting(store.conn, "centrality:q") == "fp0"
    assert len(graph_state.node_ids(store.conn, None, None)) == len(ids) + 1
