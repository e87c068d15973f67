"""Contract: the counts ``memlode stats`` and ``memlode doctor`` show (``StatsRows``) are the
same on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from memlode.storage import capture, embeddings, graph, memories, sessions, store_stats
from memlode.storage.values import NewMemory
from memlode.types import MemoryType


def test_namespace_counts(store: Any) -> None:
    with store.write() as conn:
        ids = []
        for text, ns, kind, source, day in (
            ("a", "p", MemoryType.DECISION, "memory", 1),
            ("b", "p", MemoryType.DECISION, "hook", 2),
            ("c", "p", MemoryType.INSIGHT, "hook", 3),
            ("d", "q", MemoryType.CONTEXT, "memory", 4),
        ):
            memory_id, _ = memories.insert(
                conn,
                NewMemory(
                    f"memory {text}",
                    memory_type=kind,
                    namespace=ns,
                    source=source,
                    created_at=f"2026-01-0{day}T00:00:00.000000Z",
                ),
            )
            graph.ensure_memory_node(conn, memory_id, text, ns)
            ids.append(memory_id)
        capture.add_edge(conn, ids[0], ids[1], "LEADS_TO")
        capture.add_edge(conn, ids[3], ids[0], "RELATES_TO")
        embeddings.write_vectors(conn, [(ids[0], "m", 1, b"\x00\x00\x80?", "h", "t")])
        sessions.start(conn, "s1", "p", "cli")
    assert store_stats.namespace_counts(store.conn, "p") == {
        "memories": 3,
        "by_type": {"decision": 2, "insight": 1},
        "by_source": {"hook": 2, "memory": 1},
        "embedded": 1,
        "graph_nodes": 3,
        "graph_edges": 1,
        "sessions": 1,
        "last_memory_at": "2026-01-03T00:00:00.000000Z",
    }
    everything = store_stats.namespace_counts(store.conn, None)
    assert (everything["memories"], everything["graph_edges"]) == (4, 2)
    empty = store_stats.namespace_counts(store.conn, "none")
    assert (empty["memories"], empty["by_type"], empty["last_memory_at"]) == (0, {}, None)
    state = store_stats.database_state(store.conn)
    assert set(state) == {"journal_mode", "schema_version", "fts_rows", "ok", "nodes", "edges"}
    assert (state["fts_rows"], state["ok"], state["nodes"], state["edges"]) == (4, True, 4, 2)
    assert state["schema_version"] >= 1
    assert not store_stats.has_indexed_code(store.conn, "p")


def test_prompt_recall_paths(store: Any) -> None:
    with store.write() as conn:
        for i, (tags, meta, session) in enumerate(
            (
                (["prompt"], {"recall": "resident"}, "s1"),
                (["prompt"], {"recall": "lean"}, "s1"),
                (["instruction"], {"recall": "resident"}, "s2"),
                (["prompt"], {}, "s2"),
                (["note"], {"recall": "resident"}, "s1"),
                (["prompt"], {"recall": "resident"}, "s3"),
            )
        ):
            memories.insert(
                conn, NewMemory(f"prompt {i}", tags=tags, metadata=meta, session_id=session)
            )
    paths = store_stats.prompt_recall_paths(store.conn, ["s1", "s2"])
    assert paths == {"resident": 2, "lean": 1, "none": 1}
    assert store_stats.prompt_recall_paths(store.conn, []) == {}
