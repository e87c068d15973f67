"""The background embedder's symbol backlog: one plan worked off a few symbols a round, made
again when the code index moves (a stale plan would embed old texts under old file hashes)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.code.test_symbol_vectors import APP
from tests.embed.test_embed_pending import Recording

from memlode.engine import Engine, code
from memlode.engine.code import SymbolBacklog, pending_report, pending_symbols


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    (root / "app.py").write_text(APP)
    (root / "tests" / "test_app.py").write_text("def test_quote():\n    assert True\n")
    return root


def test_the_backlog_is_worked_off_a_few_at_a_time(engine: Engine, shop: Path) -> None:
    recording = Recording()
    engine.embeddings.use_embedder(recording)
    report = code.index(engine, shop, namespace="shop", embed=False)
    assert report["symbol_vectors"] == {
        "symbols": 5,
        "pending": 5,
        "model": recording.name,
        "by": None,
    }
    backlog = SymbolBacklog()
    assert backlog.embed(engine, 3) == 3
    # the test's placeholder was written by the plan; one function waits in the backlog
    assert (backlog.waiting, pending_symbols(engine)) == (1, 1)
    assert backlog.embed(engine, 3) == 1
    assert backlog.embed(engine, 3) == 0  # nothing left, and nothing planned again
    assert pending_report(engine)["pending"] == 0
    assert len(recording.texts) == len(set(recording.texts)) == 4


def test_a_change_to_the_code_makes_a_new_plan(engine: Engine, shop: Path) -> None:
    engine.embeddings.use_embedder(Recording())
    code.index(engine, shop, namespace="shop", embed=False)
    backlog = SymbolBacklog()
    assert backlog.embed(engine, 1) == 1 and backlog.waiting == 3
    (shop / "app.py").write_text(
        APP.replace('("islands", "mountains")', '("islands", "mountains", "glaciers fjords")')
    )
    code.index(engine, shop, namespace="shop", embed=False)
    while backlog.embed(engine, 2):
        pass
    assert pending_symbols(engine) == 0  # every vector is of the file as it is now
    hits = code.search_symbols(engine, "glaciers fjords", namespace="shop", explain=True)
    assert hits[0]["qualified_name"] == "app.remote_surcharge"
    assert hits[0]["signals"]["vector"] > 0 and hits[0]["signals"]["body"] > 0
