"""Filling vectors for stored rows: the enriched text each row is embedded with."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from memlode.embed import HashEmbedder, enrich
from memlode.engine import Engine
from memlode.textutil import content_hash


class Recording:
    """The hash embedder, remembering every text it was asked to embed."""

    def __init__(self) -> None:
        self.inner = HashEmbedder(32)
        self.texts: list[str] = []

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def max_tokens(self) -> int:
        return self.inner.max_tokens

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.texts.extend(texts)
        return self.inner.embed(texts)


def test_rows_are_embedded_with_their_relationships(engine: Engine) -> None:
    recording = Recording()
    engine.embeddings.use_embedder(recording)
    hub = engine.store("the hub decision", "decision", tags="core").id
    spokes = [engine.store(f"spoke number {i} text", "insight").id for i in range(10)]
    alone = engine.store("a memory with no edges", "context").id
    for spoke in spokes:
        engine.associate(hub, spoke, "RELATES_TO")
    engine.associate(spokes[0], hub, "EVOLVED_INTO")

    assert engine.embed_pending(batch_size=5) == 12
    rows = engine.conn.execute("SELECT memory_id, text_hash FROM memory_embeddings")
    by_id = dict(rows.fetchall())

    # The hub names its first eight edges, by when they were made, as seen from its side.
    hub_text = enrich(
        "the hub decision",
        memory_type="decision",
        namespace="test",
        tags=["core"],
        relationships=[("RELATES_TO", f"spoke number {i} text") for i in range(8)],
    )
    assert hub_text in recording.texts
    assert by_id[hub] == content_hash(hub_text)
    first = enrich(
        "spoke number 0 text",
        memory_type="insight",
        namespace="test",
        relationships=[("RELATES_TO", "the hub decision"), ("EVOLVED_INTO", "the hub decision")],
    )
    assert by_id[spokes[0]] == content_hash(first)
    plain = enrich("a memory with no edges", memory_type="context", namespace="test")
    assert by_id[alone] == content_hash(plain)
