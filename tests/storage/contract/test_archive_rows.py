"""Contract: the forget cycle's archive (``ArchiveRows``) gives the same answers on SQLite and
PostgreSQL: which rows may go, a row archived whole and restored as it was."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from memlode.storage import archive, consolidation, embeddings, graph, memories, vector_rows
from memlode.storage.values import NewMemory
from memlode.types import Edge, MemoryType, Relationship


def _put(store: Any, conn: Any, text: str, **fields: Any) -> str:
    fields.setdefault("namespace", "p")
    fields.setdefault("created_at", "2025-01-01T00:00:00.000000Z")
    memory_id, created = memories.insert(conn, NewMemory(text, **fields))
    assert created
    return str(memory_id)


def test_forget_candidates(store: Any) -> None:
    with store.write() as conn:
        low = _put(store, conn, "low", importance=0.1)
        high = _put(store, conn, "high", importance=0.9)
        old = _put(store, conn, "old decision", importance=0.9)
        new = _put(store, conn, "new decision", importance=0.9)
        summary = _put(store, conn, "summary", source="consolidation")
        demoted = _put(store, conn, "stood for", importance=0.9)
        _put(store, conn, "protected", importance=0.1, memory_type=MemoryType.DECISION)
        _put(store, conn, "recent", importance=0.1, created_at="2099-01-01T00:00:00Z")
        opened = _put(store, conn, "opened", importance=0.1)
        memories.touch(conn, [opened])
        for memory_id in (old, new):
            graph.ensure_memory_node(conn, memory_id, "n", "p")
        graph.add_edge(conn, Edge(new, old, Relationship.SUPERSEDES))
        consolidation.set_demotions(conn, summary, [demoted])
    found = archive.forget_candidates(
        store.conn,
        "p",
        protected_sources=["consolidation"],
        protected_types=["decision"],
        before="2050-01-01T00:00:00Z",
        max_importance=0.3,
    )
    assert sorted(found) == sorted(
        [(low, "low importance"), (old, "superseded"), (demoted, "superseded")]
    )
    assert high and new


def test_archive_and_restore_a_row_whole(store: Any) -> None:
    a = archive
    vector = (np.arange(4, dtype="<f4") / 10).tobytes()
    with store.write() as conn:
        gone = _put(store, conn, "to forget", tags=["x"], metadata={"k": [1, 2]}, importance=0.2)
        other = _put(store, conn, "stays")
        summary = _put(store, conn, "summary", source="consolidation")
        embeddings.write_vectors(conn, [(gone, "m", 4, vector, "th", "t0")])
        for memory_id in (gone, other, summary):
            graph.ensure_memory_node(conn, memory_id, "n", "p")
        graph.add_edge(conn, Edge(gone, other, Relationship.LEADS_TO, 0.5, {"p": 1}))
        graph.add_edge(conn, Edge(summary, gone, Relationship.SUMMARIZES))
        consolidation.write_decay(conn, [(gone, 0.2, 0.6)])
        consolidation.set_demotions(conn, summary, [gone])
        consolidation.save_cluster(conn, "p", "file", "k", summary, "h1")
    before = memories.fetch(store.conn, gone)
    with store.write() as conn:
        assert a.archive_memories(conn, [(gone, "low importance"), ("nope", "x")], 7, "T1") == 1
        a.set_cluster_members(conn, summary, "h2")
    assert memories.fetch(store.conn, gone) is None
    assert a.live_summarized(store.conn, summary) == []
    assert consolidation.cluster_record(store.conn, "p", "file", "k") == (summary, "h2")
    rows = a.archived_rows(store.conn, namespace="p", run_id=7, ids=[gone], limit=5)
    assert [tuple(r)[:5] for r in rows] == [(gone, "p", 7, "T1", "low importance")]
    archived = json.loads(rows[0][5])
    assert archived["content"] == "to forget" and json.loads(archived["tags"]) == ["x"]
    assert a.archived_rows(store.conn, namespace="q", run_id=None, ids=[], limit=None) == []
    with store.write() as conn:
        assert a.restore_memories(conn, [gone, "nope"]) == {
            gone: "restored",
            "nope": "not in the archive",
        }
    assert memories.fetch(store.conn, gone) == before
    got = vector_rows.vectors_after(store.conn, "m", 4, 0).fetchall()
    assert [(r[1], bytes(r[2])) for r in got] == [(gone, vector)]
    assert sorted(
        (e.source_id, e.target_id, str(e.relationship), e.weight, e.properties)
        for e in graph.edges_of(store.conn, [gone])
    ) == sorted([(gone, other, "LEADS_TO", 0.5, {"p": 1}), (summary, gone, "SUMMARIZES", 1.0, {})])
    assert consolidation.demoted(store.conn, [gone]) == {gone}
    candidates = consolidation.decay_candidates(store.conn, "p", [], "decision")
    assert [tuple(r)[4:] for r in candidates if r[0] == gone] == [(0.6, 0.2)]
    with store.write() as conn:
        a.archive_memories(conn, [(gone, "again")], 8, "T2")
        memories.insert(conn, NewMemory("to forget", namespace="p"))
        result = a.restore_memories(conn, [gone])
        assert result[gone].startswith("already in the store as")
        assert a.purge_archive(conn, "p", "T3") == 1
    assert a.archived_rows(store.conn, namespace=None, run_id=None, ids=[], limit=None) == []
