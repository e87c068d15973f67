"""A consolidation summary joins many observations' words: it is ranked, but the other
candidates' signals are not normalised to it."""

from __future__ import annotations

import pytest

from memlode.engine import Engine
from memlode.storage.values import NewMemory


def test_a_summary_does_not_set_the_scale_of_the_others(engine: Engine) -> None:
    """A consolidation summary joins many observations' words; the others' text and vector
    signals are normalised to the best of the others, not to it."""
    from memlode.storage import memories

    note = engine.store("The tracing packages commit added six dependencies", "context").id
    engine.store("Tracing was planned for the next sprint", "context")
    engine.embed_pending()
    query = "tracing packages commit dependencies"
    before = {h.memory.id: h.signals for h in engine.search(query, 4)}[note]
    with engine.db.write() as conn:
        memories.insert(
            conn,
            NewMemory(
                "Ran `git commit` 4 times: tracing packages commit, tracing packages"
                " dependencies commit, dependencies of the tracing packages",
                tags=["summary", "cluster:command"],
                namespace=engine.namespace,
                source="consolidation",
            ),
        )
    engine.embed_pending()
    after = {h.memory.id: h.signals for h in engine.search(query, 4)}[note]
    assert after["bm25"] == pytest.approx(before["bm25"])
    assert after["vector"] == pytest.approx(before["vector"])
