"""One embedder per server process: every engine the MCP server opens shares it."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from memlode.config import Settings
from memlode.embed import CachedEmbedder
from memlode.engine import Engine
from memlode.engine.embed_worker import BackgroundEmbedder
from memlode.mcp.context import ToolContext


def _context(tmp_path: Path, provider: str = "hash") -> ToolContext:
    settings = Settings.load({"namespace": "proj", "embed_provider": provider})
    return ToolContext(settings, cwd=tmp_path)


def _run_worker_until(ctx: ToolContext, done: Callable[[Engine], bool]) -> None:
    """Run the server's background embedder until ``done`` holds (or 30 s pass)."""
    worker = BackgroundEmbedder(
        ctx.settings, cwd=ctx.cwd, start_delay=0.0, idle_seconds=0.2, open_engine=ctx.open_engine
    )
    worker.start()
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with ctx.engine() as engine:
                if done(engine):
                    return
            time.sleep(0.05)
    finally:
        worker.stop()


def test_engines_of_one_server_share_its_embedder(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    shared = ctx.shared_embedder()
    assert isinstance(shared, CachedEmbedder)
    other = ctx.open_engine()
    try:
        with ctx.engine() as tools:
            assert tools.embeddings.embedder is shared
        assert other.embeddings.embedder is shared
        assert ctx.shared_embedder() is shared  # made once
    finally:
        other.close()
        ctx.close()


def test_background_embedder_embeds_with_the_shared_model(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    shared = ctx.shared_embedder()
    assert isinstance(shared, CachedEmbedder)
    with ctx.engine() as engine:
        engine.store("pgbouncer pools postgres connections", "decision")
        engine.store("the nightly job vacuums the database", "context")
        assert engine.pending_embeddings() == 2
    _run_worker_until(ctx, lambda engine: engine.pending_embeddings() == 0)
    with ctx.engine() as engine:
        assert engine.pending_embeddings() == 0
        # The worker embedded through the shared embedder (its cache counted both texts).
        assert shared.misses == 2
    ctx.close()


def test_background_embedder_gives_old_rows_their_token_states(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    with ctx.engine() as engine:
        engine.store("pgbouncer pools postgres connections", "decision")
        engine.store("the nightly job vacuums the database", "context")
        engine.embed_pending()
        with engine.db.write() as conn:  # as a store embedded before token states existed
            conn.execute("DELETE FROM memory_tokens")
        assert engine.pending_token_states() == 2
    _run_worker_until(ctx, lambda engine: engine.pending_token_states() == 0)
    with ctx.engine() as engine:
        assert engine.pending_token_states() == 0
        assert engine.conn.execute("SELECT count(*) FROM memory_tokens").fetchone()[0] == 2
        health = engine.health()
        assert health["pending_token_states"] == 0 and health["pending_embeddings"] == 0
    ctx.close()


def test_without_embeddings_engines_get_none(tmp_path: Path) -> None:
    ctx = _context(tmp_path, provider="none")
    assert ctx.shared_embedder() is None
    with ctx.engine() as engine:
        assert engine.embeddings.embedder is None
        engine.store("text search still works", "context")
        assert engine.search("text search", k=1)
    ctx.close()
