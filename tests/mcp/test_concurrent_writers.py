"""The MCP server and other memlode processes on one store: every acknowledged write survives.

The reproduction of a lost-write bug: while ``memlode mcp`` served, CLI processes storing and
listing made 19 of 20 acknowledged ``store_memory`` calls vanish, because opening the
database file by other means than SQLite (and closing it) drops every POSIX lock the server
process held on it; another process then checkpointed and reset the WAL under the server.
Here the real server stores through the SDK's stdio client while CLI processes store and list
the same database; afterwards every id either side was given is present and the database
passes ``PRAGMA integrity_check``.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from tests.mcp.conftest import Harness

pytestmark = [pytest.mark.heavy, pytest.mark.anyio]

MCP_STORES = 30
CLI_WORKERS = 2
CLI_ROUNDS = 6


def _cli_loop(worker: int, cwd: Path, ids: list[str], errors: list[str]) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    for round_ in range(CLI_ROUNDS):
        for args in (
            ["store", f"cli worker {worker} note {round_} about the write ahead log"],
            ["list", "--limit", "5"],
        ):
            proc = subprocess.run(
                [sys.executable, "-m", "memlode", *args],
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            if proc.returncode != 0:
                errors.append(proc.stderr.strip())
            elif args[0] == "store":
                ids.append(proc.stdout.strip())


async def test_server_and_cli_writers_lose_nothing(harness: Harness, memlode_home: Path) -> None:
    cli_ids: list[str] = []
    cli_errors: list[str] = []
    mcp_ids: list[str] = []
    async with harness.session() as session:
        # The server has opened its connections before the other processes start.
        harness.ok(await session.call_tool("store_memory", {"content": "warm-up note"}))
        threads = [
            threading.Thread(target=_cli_loop, args=(w, harness.cwd, cli_ids, cli_errors))
            for w in range(CLI_WORKERS)
        ]
        for thread in threads:
            thread.start()
        for i in range(MCP_STORES):
            data = harness.ok(
                await session.call_tool(
                    "store_memory", {"content": f"server note {i} on checkpoint safety"}
                )
            )
            mcp_ids.append(data["id"])
            if i % 3 == 0:
                harness.ok(await session.call_tool("recall_memory", {"query": "checkpoint"}))
        for thread in threads:
            thread.join()

    assert cli_errors == []
    assert len(cli_ids) == CLI_WORKERS * CLI_ROUNDS
    db = memlode_home / "memlode.db"
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        present = {row[0] for row in conn.execute("SELECT id FROM memories")}
    finally:
        conn.close()
    missing = [i for i in mcp_ids + cli_ids if i not in present]
    assert missing == [], f"{len(missing)} acknowledged writes lost"
