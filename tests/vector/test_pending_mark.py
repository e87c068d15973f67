"""A search's catch-up does not count the store when nothing changed (issue 16, 1M memories:
the two counts took 160-250 ms a search), yet sees every change that can leave rows without
a vector: a new memory, an edited one, a vector deleted by another process."""

from __future__ import annotations

import sqlite3

from memlode.config import Settings
from memlode.engine import Engine


def _counts(engine: Engine) -> list[str]:
    """The statements ``pending`` counts with, as the engine's connection runs them."""
    seen: list[str] = []

    def trace(sql: str) -> None:
        if sql == "SELECT count(*) FROM memories" or (
            sql.startswith("SELECT count(*) FROM memory_embeddings WHERE model =")
            and "dim" not in sql
        ):
            seen.append(sql)

    engine.conn.set_trace_callback(trace)
    return seen


def test_pending_counts_only_after_a_change(memlode_home) -> None:
    engine = Engine(Settings.load({"namespace": "test"}))
    ids = [engine.store(f"memory {i} about caching").id for i in range(3)]
    engine.embed_pending()
    seen = _counts(engine)
    assert engine.embeddings.pending() == 0
    assert len(seen) == 2  # counted once: nothing was known yet
    seen.clear()
    for _ in range(3):
        assert engine.embeddings.pending() == 0
        engine.search("caching")  # its catch-up asks too
    assert seen == []  # nothing changed: no count

    engine.store("a new memory about queues")
    assert engine.embeddings.pending() == 1
    engine.embed_pending()
    assert engine.embeddings.pending() == 0

    engine.update(ids[0], content="edited: about retries now")
    assert engine.embeddings.pending() == 1
    engine.embed_pending()
    assert engine.embeddings.pending() == 0

    # another process deletes a vector (as a re-embed does): the model's version moves
    other = sqlite3.connect(engine.db.path)
    other.execute("DELETE FROM memory_embeddings WHERE memory_id = ?", (ids[1],))
    other.commit()
    other.close()
    assert engine.embeddings.pending() == 1
    engine.close()
