"""Contract: what ``memlode doctor`` finds unreadable (``RowCheckRows``) is the same on SQLite
and PostgreSQL for rows written through the repositories: a vector of another size than its
model's others, token states that are not a whole number of tokens, and nothing else."""

from __future__ import annotations

from typing import Any

import numpy as np

from memlode.storage import embeddings, memories, row_checks
from memlode.storage.values import NewMemory


def test_vectors_and_states_that_cannot_be_read(store: Any) -> None:
    rc = row_checks
    with store.write() as conn:
        ids = [memories.insert(conn, NewMemory(f"text {i}", namespace="p"))[0] for i in range(4)]
        usual = np.ones(16, dtype="<f4").tobytes()
        embeddings.write_vectors(
            conn,
            [(ids[i], "m", 16, usual, "h", "t") for i in range(3)]
            + [(ids[3], "m", 4, np.ones(4, dtype="<f4").tobytes(), "h", "t")],
        )
        embeddings.write_states(
            conn, [(ids[0], "m", b"\x01\x02\x03\x04"), (ids[1], "m", b"\x01\x02\x03")]
        )
    assert [b.to_dict() for b in rc.bad_embeddings(store.conn)] == [
        {"table": "memory_embeddings", "id": ids[3], "problem": "not 16 dimensions"}
    ]
    assert [b.to_dict() for b in rc.bad_token_states(store.conn)] == [
        {"table": "memory_tokens", "id": ids[1], "problem": "states of 3 bytes for 16 dimensions"}
    ]
    assert rc.unreadable_memories(store.conn) == [] and rc.unreadable_json(store.conn) == []
    with store.write() as conn:
        assert rc.delete_token_states(conn, [ids[1], "nope"]) == 1
        assert rc.delete_embeddings(conn, [ids[3], ids[0]]) == 2
        assert rc.delete_embeddings(conn, []) == 0
    assert rc.bad_embeddings(store.conn) == [] and rc.bad_token_states(store.conn) == []
    assert embeddings.rows_by_model(store.conn, "memory_tokens", "m") == 0
