"""While `memlode mcp` runs it hosts the store's resident: hooks and `memlode search` ask it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from tests.mcp.conftest import ok

from memlode.config import Settings
from memlode.engine import Engine
from memlode.hooks._resident import recall, vector_hits
from memlode.resident_client.client import ask, database_of
from memlode.resident_client.lock import held
from memlode.resident_client.paths import lock_path, socket_path

pytestmark = pytest.mark.anyio

ON = {"MEMLODE_RESIDENT_AUTOSTART": "1"}


def _ping(home: Path) -> dict[str, object] | None:
    answer = ask(Settings.load({"home": str(home)}), {"op": "ping"}, 2.0)
    return answer if answer is not None and answer.get("ok") is True else None


async def test_the_running_server_answers_the_hooks(
    harness, store: Engine, memlode_home: Path
) -> None:
    memory = store.store("postgres connection pooling with pgbouncer", "decision")
    store.embed_pending()
    db = str(store.db.path)
    sock = socket_path(str(memlode_home), database_of(Settings.load({})))
    async with harness.session(env=ON) as session:
        await session.list_tools()
        deadline = time.monotonic() + 30
        while not os.path.exists(sock) and time.monotonic() < deadline:
            await anyio.sleep(0.1)
        assert os.path.exists(sock), harness.server_stderr()
        assert os.stat(sock).st_mode & 0o077 == 0  # owner only
        hits: dict[str, float] = {}
        while not hits and time.monotonic() < deadline:
            hits = vector_hits(str(memlode_home), "pgbouncer pooling", store.namespace, 5, 2000, db)
            await anyio.sleep(0.1)
        assert memory.id in hits and 0 < hits[memory.id] <= 1.0
        other_db = vector_hits(str(memlode_home), "pgbouncer", "proj", 5, 2000, "/elsewhere.db")
        assert other_db == {}  # a hook of another database gets nothing
        found = recall(str(memlode_home), db, "pgbouncer pooling", store.namespace, "s", 4, 5000)
        assert found is not None and found[0]["id"] == memory.id
        info = _ping(memlode_home)
        assert info is not None and info["host"] == "mcp" and info["pid"] != os.getpid()

        # One per store: a resident started by hand finds the store served; stop is refused.
        env = {**os.environ, **ON}
        cmd = [sys.executable, "-m", "memlode", "resident", "--foreground"]
        second = await anyio.to_thread.run_sync(
            lambda: subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
        )
        assert second.returncode == 0 and "already serves" in second.stderr
        refused = ask(Settings.load({}), {"op": "stop"}, 2.0)
        assert refused is not None and refused["code"] == "refused"
    assert not os.path.exists(sock)  # removed when the server stops
    assert not held(lock_path(str(memlode_home), db))


async def test_the_server_leaves_a_running_resident_alone_and_asks_it(
    harness, store: Engine, memlode_home: Path, workdir: Path
) -> None:
    memory = store.store("redis holds the session cache", "decision")
    store.store("the deploy runs on fridays", "decision", namespace="other")
    env = {**os.environ, **ON}
    started = subprocess.run(
        [sys.executable, "-m", "memlode", "resident"],
        capture_output=True,
        text=True,
        env=env,
        cwd=workdir,
        timeout=60,
    )
    assert started.returncode == 0, started.stderr
    first = _ping(memlode_home)
    assert first is not None and first["host"] == "resident"
    try:
        async with harness.session(env=ON) as session:
            await session.list_tools()
            await anyio.sleep(1.0)
            info = _ping(memlode_home)
            assert info is not None and info["pid"] == first["pid"]  # still the same one

            # recall_memory is the resident's search: its warm engine answers, counted there
            result = ok(
                await session.call_tool(
                    "recall_memory", {"query": "redis session cache", "explain": True}
                )
            )
            after = _ping(memlode_home)
            assert after is not None and after["answered"] == info["answered"] + 1
            assert [hit["id"] for hit in result["hits"]] == [memory.id]
            assert result["namespace"] == store.namespace
            assert result["hits"][0]["signals"]
            everywhere = ok(
                await session.call_tool("recall_memory", {"query": "deploy", "namespace": "*"})
            )
            assert everywhere["namespace"] == "*" and len(everywhere["hits"]) == 1
            missing = await session.call_tool("recall_memory", {"query": "   "})
            assert missing.is_error  # refused there, then answered here with the engine's error
    finally:
        subprocess.run(
            [sys.executable, "-m", "memlode", "resident", "stop"], env=env, timeout=60, check=True
        )


def test_without_a_resident_the_hook_client_returns_nothing(memlode_home: Path) -> None:
    assert vector_hits(str(memlode_home), "anything", "proj", 5, 150) == {}
    assert recall(str(memlode_home), "", "anything", "proj", "s", 5, 150) is None
    db = database_of(Settings.load({}))
    sock = Path(socket_path(str(memlode_home), db))
    sock.parent.mkdir(parents=True, exist_ok=True)
    sock.write_text("")  # a stale file, nobody listening
    assert vector_hits(str(memlode_home), "anything", "proj", 5, 150) == {}
    assert recall(str(memlode_home), "", "anything", "proj", "s", 5, 150) is None
