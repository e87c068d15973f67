"""Candidate rows: the light columns recall scores, and the filter evaluated on them."""

from __future__ import annotations

import random
from pathlib import Path

from memlode.config import Settings
from memlode.engine import Engine
from memlode.search.candidates import load_rows, passes
from memlode.storage import memories as memory_repo
from memlode.storage.values import MemoryFilter
from memlode.types import MemoryType


def test_rows_carry_what_the_signals_read(engine: Engine) -> None:
    plain = engine.store("plain note", "decision", importance=0.9, confidence=0.4).id
    tagged = engine.store("tagged note", tags="a,b").id
    green = engine.store("pinned", metadata={"evergreen": True}).id
    doc = engine.store("chunk", metadata={"path": "docs/MEMORY.md", "x": 1}, source="doc").id
    odd = engine.store("odd", metadata={"note": "the word path and evergreen in a value"}).id
    rows = load_rows(engine.conn, [plain, tagged, green, doc, odd, "missing-id"])
    assert set(rows) == {plain, tagged, green, doc, odd}
    assert rows[plain].memory_type == "decision"
    assert (rows[plain].importance, rows[plain].confidence) == (0.9, 0.4)
    assert rows[plain].tags == [] and rows[tagged].tags == ["a", "b"]
    assert rows[green].evergreen and rows[green].path is None
    assert not rows[doc].evergreen and rows[doc].path == "docs/MEMORY.md"
    assert rows[doc].source == "doc"
    assert not rows[odd].evergreen and rows[odd].path is None
    full = memory_repo.fetch(engine.conn, plain)
    assert full is not None and rows[plain].created_at == full.created_at


def test_filter_on_rows_agrees_with_sql(tmp_path: Path) -> None:
    engine = Engine(Settings.load({"home": str(tmp_path), "embed_provider": "none"}))
    rng = random.Random(5)
    types = list(MemoryType)
    try:
        for i in range(60):
            engine.store(
                f"memory {i}",
                rng.choice(types),
                tags=rng.sample(["x", "y", "z"], rng.randint(0, 2)),
                namespace=rng.choice(["n1", "n2"]),
                source=rng.choice(["memory", "doc", "conversation"]),
                session_id=rng.choice([None, "s1", "s2"]),
                created_at=f"2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T00:00:00Z",
            )
        every = memory_repo.select(engine.conn, MemoryFilter(namespace=None))
        rows = load_rows(engine.conn, [m.id for m in every])
        for _ in range(100):
            flt = MemoryFilter(
                namespace=rng.choice([None, "n1", "n2"]),
                memory_types=rng.sample(types, rng.randint(0, 2)),
                tags=rng.sample(["x", "y"], rng.randint(0, 1)),
                sources=rng.sample(["memory", "doc", "conversation"], rng.randint(0, 2)),
                session_id=rng.choice([None, "s1"]),
                since=rng.choice([None, "2026-03-01T00:00:00.000000Z"]),
                until=rng.choice([None, "2026-07-01T00:00:00.000000Z"]),
            )
            expected = {m.id for m in memory_repo.select(engine.conn, flt)}
            assert {i for i, r in rows.items() if passes(r, flt)} == expected
    finally:
        engine.close()
