"""`memlode mcp --watch` re-indexes memory files while the server runs."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest

from memlode.engine import Engine

pytestmark = pytest.mark.anyio


def _doc_chunks(store: Engine, needle: str) -> int:
    found = store.list_memories(namespace="*", sources=["doc"], limit=None)
    return sum(1 for m in found if needle in m.content)


async def test_watch_indexes_a_memory_file_edited_while_serving(
    harness, store: Engine, workdir: Path
) -> None:
    (workdir / "MEMORY.md").write_text("# Project memory\n\nWe deploy on Fridays.\n")
    async with harness.session("--watch") as session:
        await session.list_tools()
        deadline = time.monotonic() + 60
        while _doc_chunks(store, "deploy on Fridays") == 0 and time.monotonic() < deadline:
            await anyio.sleep(0.2)
        assert _doc_chunks(store, "deploy on Fridays") == 1, harness.server_stderr()
        (workdir / "MEMORY.md").write_text("# Project memory\n\nWe deploy on Tuesdays now.\n")
        deadline = time.monotonic() + 60
        while _doc_chunks(store, "Tuesdays") == 0 and time.monotonic() < deadline:
            await anyio.sleep(0.2)
        assert _doc_chunks(store, "Tuesdays") == 1, harness.server_stderr()
        assert _doc_chunks(store, "Fridays") == 0


async def test_without_watch_nothing_is_indexed(harness, store: Engine, workdir: Path) -> None:
    (workdir / "MEMORY.md").write_text("# Project memory\n\nWe deploy on Fridays.\n")
    async with harness.session() as session:
        await session.list_tools()
        await anyio.sleep(1.0)
    assert _doc_chunks(store, "deploy on Fridays") == 0
