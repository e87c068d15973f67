"""Contract: ``EmbeddingRows`` and ``VectorRows`` (vectors, token states, what is left to
embed, what a process's vector index loads) give the same answers on SQLite and PostgreSQL.
Vectors go in and come out as little-endian float32 bytes on both."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from memlode.storage import capture, embeddings, fts_log, memories, vector_rows
from memlode.storage.values import NewMemory

MODEL = "test-model"
DIM = 8


def _vector(seed: int, dim: int = DIM) -> bytes:
    values = np.random.default_rng(seed).standard_normal(dim).astype("<f4")
    return (values / np.linalg.norm(values)).astype("<f4").tobytes()


def _memories(store: Any, n: int, namespace: str = "p") -> list[str]:
    ids = []
    with store.write() as conn:
        for i in range(n):
            memory_id, _ = memories.insert(
                conn, NewMemory(f"memory number {i}", namespace=namespace, tags=[f"t{i}"])
            )
            ids.append(memory_id)
    return ids


def _embed(store: Any, ids: list[str], model: str = MODEL, dim: int = DIM) -> None:
    with store.write() as conn:
        embeddings.write_vectors(
            conn,
            [
                (memory_id, model, dim, _vector(i, dim), f"h{i}", "2026-01-01T00:00:00.000000Z")
                for i, memory_id in enumerate(ids)
            ],
        )


def test_vectors_read_back_as_written_in_write_order(store: Any) -> None:
    ids = _memories(store, 5)
    _embed(store, ids[:3])
    _embed(store, ids[3:], model="other", dim=4)
    rows = vector_rows.vectors_after(store.conn, MODEL, DIM, 0).fetchall()
    assert [r[1] for r in rows] == ids[:3]
    assert [bytes(r[2]) for r in rows] == [_vector(i) for i in range(3)]
    assert {r[3] for r in rows} == {"p"}
    rowids = [int(r[0]) for r in rows]
    assert rowids == sorted(rowids)
    later = vector_rows.vectors_after(store.conn, MODEL, DIM, rowids[0]).fetchall()
    assert [r[1] for r in later] == ids[1:3]
    assert vector_rows.vector_count(store.conn, MODEL, DIM) == 3
    assert vector_rows.vector_count(store.conn, MODEL, 4) == 0
    assert vector_rows.vector_count_and_rowid_sum(store.conn, MODEL, DIM) == (
        3,
        sum(rowids),
    )
    assert embeddings.models(store.conn) == {MODEL: 3, "other": 2}
    assert embeddings.rows_by_model(store.conn, "memory_embeddings", MODEL) == 3
    assert sorted(vector_rows.known_models(store.conn)) == ["other", MODEL]


def test_a_vector_is_replaced_in_place_and_skipped_for_a_vanished_memory(store: Any) -> None:
    ids = _memories(store, 2)
    _embed(store, ids)
    version = vector_rows.model_version(store.conn, MODEL)
    before = vector_rows.vectors_after(store.conn, MODEL, DIM, 0).fetchall()
    with store.write() as conn:
        embeddings.write_vectors(
            conn,
            [
                (ids[0], MODEL, DIM, _vector(9), "h9", "2026-01-02T00:00:00.000000Z"),
                ("vanished", MODEL, DIM, _vector(8), "h8", "2026-01-02T00:00:00.000000Z"),
            ],
        )
    after = vector_rows.vectors_after(store.conn, MODEL, DIM, 0).fetchall()
    assert [r[0] for r in after] == [r[0] for r in before]  # same rows, same rowids
    assert bytes(after[0][2]) == _vector(9) and bytes(after[1][2]) == _vector(1)
    assert vector_rows.model_version(store.conn, MODEL) > version


def test_rows_to_embed_newest_first_below_a_rowid(store: Any) -> None:
    ids = _memories(store, 5)
    _embed(store, [ids[1]])
    rows = embeddings.rows_to_embed(store.conn, MODEL, -1, 3, states_only=False)
    assert [r["id"] for r in rows] == [ids[4], ids[3], ids[2]]
    assert json.loads(rows[0]["tags"]) == ["t4"] and rows[0]["content"] == "memory number 4"
    assert (rows[0]["memory_type"], rows[0]["namespace"]) == ("context", "p")
    rest = embeddings.rows_to_embed(store.conn, MODEL, int(rows[-1][0]), 10, states_only=False)
    assert [r[1] for r in rest] == [ids[0]]
    states = embeddings.rows_to_embed(store.conn, MODEL, -1, 10, states_only=True)
    assert [r["id"] for r in states] == [ids[1]]


def test_token_states_live_only_beside_their_vector(store: Any) -> None:
    ids = _memories(store, 3)
    _embed(store, ids[:2])
    with store.write() as conn:
        embeddings.write_states(
            conn,
            [(ids[0], MODEL, b"\x01\x02"), (ids[1], "wrong", b"\x03"), (ids[2], MODEL, b"\x04")],
        )
    assert embeddings.rows_by_model(store.conn, "memory_tokens", MODEL) == 1
    # new content drops the vector, and the token states with it
    with store.write() as conn:
        capture.update_memory_content(conn, ids[0], "changed text", {})
    assert embeddings.rows_by_model(store.conn, "memory_tokens", MODEL) == 0
    assert embeddings.models(store.conn) == {MODEL: 1}


def test_delete_vectors_of_other_models_or_all(store: Any) -> None:
    ids = _memories(store, 4)
    _embed(store, ids[:2])
    _embed(store, ids[2:], model="old", dim=4)
    with store.write() as conn:
        embeddings.write_states(conn, [(ids[0], MODEL, b"\x01")])
        assert embeddings.delete_vectors(conn, keep_model=MODEL) == 2
    assert embeddings.models(store.conn) == {MODEL: 2}
    assert embeddings.rows_by_model(store.conn, "memory_tokens", MODEL) == 1
    with store.write() as conn:
        assert embeddings.delete_vectors(conn, keep_model=None) == 2
    assert embeddings.models(store.conn) == {}
    assert embeddings.rows_by_model(store.conn, "memory_tokens", MODEL) == 0
    assert embeddings.memory_count(store.conn) == 4


def test_change_marks_move_with_text_and_vectors_only(store: Any) -> None:
    ids = _memories(store, 2)
    first = embeddings.change_marks(store.conn, MODEL)
    assert embeddings.change_marks(store.conn, MODEL) == first
    _embed(store, ids)
    second = embeddings.change_marks(store.conn, MODEL)
    assert second[0] == first[0] and second[1] != first[1]
    with store.write() as conn:
        memories.touch(conn, ids)  # an access changes no text
    assert embeddings.change_marks(store.conn, MODEL) == second
    with store.write() as conn:
        memories.update(conn, ids[0], {"content": "new words"})
    third = embeddings.change_marks(store.conn, MODEL)
    assert third[0] != second[0]


def test_relationships_of_name_the_other_end(store: Any) -> None:
    ids = _memories(store, 2)
    with store.write() as conn:
        summary, _ = memories.insert(
            conn, NewMemory("a summary of both", namespace="p", source="consolidation")
        )
        for memory_id, name in ((ids[0], "first"), (ids[1], "second"), (summary, "summary")):
            capture.ensure_memory_node(conn, memory_id, name, "p")
        file_node = capture.upsert_file_node(conn, "/src/app.py", "p", "app.py")
        assert capture.add_edge(conn, ids[0], ids[1], "LEADS_TO")
        assert not capture.add_edge(conn, ids[0], ids[1], "LEADS_TO", weight=2.0)
        assert capture.add_edge(conn, summary, ids[0], "SUMMARIZES")
        assert capture.add_edge(conn, ids[0], file_node, "RELATES_TO", {"k": "v"})
    assert capture.node_exists(store.conn, file_node)
    assert not capture.node_exists(store.conn, "nope")
    rows = embeddings.relationships_of(store.conn, [ids[0]])
    assert [(r[0], r[2], r[3], bool(r[4])) for r in rows] == [
        (ids[0], "LEADS_TO", "second", False),
        (ids[0], "SUMMARIZES", "summary", True),
        (ids[0], "RELATES_TO", "app.py", False),
    ]
    assert embeddings.relationships_of(store.conn, []) == []
    # deleting a memory takes its node and edges with it
    with store.write() as conn:
        memories.delete(conn, [summary])
    assert [r[2] for r in embeddings.relationships_of(store.conn, [ids[0]])] == [
        "LEADS_TO",
        "RELATES_TO",
    ]


def test_the_text_change_log_names_each_changed_row(store: Any) -> None:
    ids = _memories(store, 3)
    first = fts_log.oldest_seq(store.conn)
    assert first is not None
    (after_inserts, _) = embeddings.change_marks(store.conn, MODEL)
    rowids = {
        int(r[0]) for r in embeddings.rows_to_embed(store.conn, MODEL, -1, 10, states_only=False)
    }
    assert set(fts_log.changed_rowids(store.conn, first - 1, after_inserts, 10)) == rowids
    with store.write() as conn:
        memories.update(conn, ids[1], {"tags": ["new"]})
        memories.update(conn, ids[1], {"importance": 0.9})  # not text: not logged
        memories.delete(conn, [ids[2]])
    (latest, _) = embeddings.change_marks(store.conn, MODEL)
    changed = fts_log.changed_rowids(store.conn, after_inserts, latest, 10)
    assert len(changed) == 2 and set(changed) < rowids
    assert len(fts_log.changed_rowids(store.conn, first - 1, latest, 2)) == 2
