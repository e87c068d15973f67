"""While `memlode mcp` runs, hooks can ask it for vector hits over a unix socket."""

from __future__ import annotations

import os
import time
from pathlib import Path

import anyio
import pytest

from memlode.engine import Engine
from memlode.hooks._resident import SOCKET_NAME, vector_hits

pytestmark = pytest.mark.anyio


async def test_hook_client_gets_vector_hits_from_the_running_server(
    harness, store: Engine, memlode_home: Path
) -> None:
    memory = store.store("postgres connection pooling with pgbouncer", "decision")
    store.embed_pending()
    socket_path = memlode_home / SOCKET_NAME
    db = str(store.db.path)
    async with harness.session() as session:
        await session.list_tools()
        deadline = time.monotonic() + 30
        while not socket_path.exists() and time.monotonic() < deadline:
            await anyio.sleep(0.1)
        assert socket_path.exists(), harness.server_stderr()
        assert os.stat(socket_path).st_mode & 0o077 == 0  # owner only
        hits: dict[str, float] = {}
        while not hits and time.monotonic() < deadline:
            hits = vector_hits(str(memlode_home), "pgbouncer pooling", "proj", 5, 2000, db)
            await anyio.sleep(0.1)
        assert memory.id in hits and 0 < hits[memory.id] <= 1.0
        other_db = vector_hits(str(memlode_home), "pgbouncer", "proj", 5, 2000, "/elsewhere.db")
        assert other_db == {}  # a hook of another database gets nothing
    assert not socket_path.exists()  # removed when the server stops


def test_without_a_server_the_hook_client_returns_nothing(memlode_home: Path) -> None:
    assert vector_hits(str(memlode_home), "anything", "proj", 5, 150) == {}
    memlode_home.mkdir(parents=True, exist_ok=True)
    (memlode_home / SOCKET_NAME).write_text("")  # a stale file, nobody listening
    assert vector_hits(str(memlode_home), "anything", "proj", 5, 150) == {}
