"""The consolidation tools through ``memlode mcp`` over stdio: ``consolidate`` (dry run, run,
re-run), ``consolidation_status``, and an invalid call as an isError result."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlode.config import Settings
from memlode.engine import Engine
from memlode.storage import memories

pytestmark = pytest.mark.anyio


def _observations(cwd: Path) -> None:
    """Three observations of one command, stored as the hooks store them."""
    engine = Engine(Settings.load({}), cwd=cwd)
    try:
        with engine.db.write() as conn:
            for n in range(3):
                memories.insert(
                    conn,
                    memories.NewMemory(
                        f"$ make lint\n[stdout]\nrun {n}: 0 problems",
                        tags=["command", "cmd:make", "tool:Bash"],
                        metadata={"command": "make lint", "tool": "Bash"},
                        namespace=engine.namespace,
                        source="hook",
                        session_id="s1",
                    ),
                )
    finally:
        engine.close()


async def test_consolidate_and_its_status(harness, workdir: Path) -> None:
    _observations(workdir)
    async with harness.session() as session:
        tools = {t.name for t in (await session.list_tools()).tools}
        assert {"consolidate", "consolidation_status"} <= tools
        dry = harness.ok(
            await session.call_tool("consolidate", {"cycles": ["cluster"], "dry_run": True})
        )
        [run] = dry["runs"]
        assert run["dry_run"] and run["counts"]["new"] == 1
        assert run["changes"][0]["summary"].startswith("Ran `make lint` 3 times")
        empty = harness.ok(await session.call_tool("consolidation_status", {}))
        assert empty["runs"] == []  # the dry run logged nothing
        done = harness.ok(await session.call_tool("consolidate", {"cycles": ["cluster"]}))
        assert done["runs"][0]["counts"]["new"] == 1
        again = harness.ok(await session.call_tool("consolidate", {}))
        assert {r["cycle"] for r in again["runs"]} == {"decay", "patterns", "cluster"}
        cluster = next(r for r in again["runs"] if r["cycle"] == "cluster")
        assert cluster["counts"]["unchanged"] == 1 and cluster["changes"] == []
        log = harness.ok(await session.call_tool("consolidation_status", {"limit": 5}))
        assert [r["cycle"] for r in log["runs"]] == ["decay", "patterns", "cluster", "cluster"]
        assert all(r["state"] == "finished" for r in log["runs"])
        bad = await session.call_tool("consolidate", {"cycles": ["forget"]})
        assert bad.is_error
