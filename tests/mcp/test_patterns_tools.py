"""The pattern tools through ``memlode mcp`` over stdio: ``detect_patterns`` (dry run, run,
re-run), ``pattern_insights`` (filters), and invalid calls as isError results."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlode.config import Settings
from memlode.engine import Engine
from memlode.storage import memories
from memlode.storage.values import NewMemory

pytestmark = pytest.mark.anyio


def _sessions(cwd: Path) -> None:
    """Three sessions that read one file, the second with a failed test run, an edit, and the
    run passing; stored as the hooks store them."""
    engine = Engine(Settings.load({}), cwd=cwd)
    path = str(cwd / "src" / "billing.py")
    command = "pytest tests/test_billing.py"
    try:
        with engine.db.write() as conn:
            for s in range(3):
                rows = [
                    NewMemory(
                        f"Read src/billing.py lines {s + 1}-40 of 90",
                        tags=["read", "tool:Read"],
                        metadata={"file": path, "tool": "Read"},
                    )
                ]
                if s == 1:
                    rows += [
                        NewMemory(
                            f"Failed: $ {command}\nExit code 1\nE   NameError: name 'refund'",
                            tags=["failure", "command", "cmd:pytest", "tool:Bash"],
                            metadata={"command": command, "tool": "Bash"},
                        ),
                        NewMemory(
                            "Edited src/billing.py: +2 -0 lines in 1 hunk",
                            tags=["edit", "tool:Edit"],
                            metadata={"file": path, "tool": "Edit"},
                        ),
                        NewMemory(
                            f"$ {command}\n[stdout]\n5 passed",
                            tags=["command", "cmd:pytest", "tool:Bash"],
                            metadata={"command": command, "tool": "Bash"},
                        ),
                    ]
                for new in rows:
                    new.namespace, new.source, new.session_id = engine.namespace, "hook", f"s{s}"
                    memories.insert(conn, new)
    finally:
        engine.close()


async def test_detect_patterns_and_pattern_insights(harness, workdir: Path) -> None:
    _sessions(workdir)
    async with harness.session() as session:
        tools = {t.name for t in (await session.list_tools()).tools}
        assert {"detect_patterns", "pattern_insights"} <= tools
        dry = harness.ok(await session.call_tool("detect_patterns", {"dry_run": True}))
        assert dry["dry_run"] and sorted(c["kind"] for c in dry["changes"]) == [
            "error-fix",
            "hotspot",
        ]
        assert all(c["memory_id"] is None for c in dry["changes"])
        empty = harness.ok(await session.call_tool("pattern_insights", {}))
        assert empty["patterns"] == []  # the dry run wrote nothing

        done = harness.ok(await session.call_tool("detect_patterns", {}))
        assert {c["state"] for c in done["changes"]} == {"new"}
        [counts] = done["counts"].values()
        assert counts["hotspot"] == 1 and counts["error-fix"] == 1
        again = harness.ok(await session.call_tool("detect_patterns", {}))
        assert again["changes"] == [] and next(iter(again["counts"].values()))["unchanged"] == 2

        listed = harness.ok(await session.call_tool("pattern_insights", {}))
        assert [p["kind"] for p in listed["patterns"]] == [
            "hotspot",
            "error-fix",
        ]  # strongest first
        fix = harness.ok(await session.call_tool("pattern_insights", {"kind": "error-fix"}))
        [only] = fix["patterns"]
        assert only["memory_type"] == "insight" and only["evidence"] == 3
        assert only["text"].startswith(
            "`pytest tests/test_billing.py` failed with \"E NameError: name 'refund'\";"
            " fixed by editing src/billing.py"
        )
        strong = harness.ok(await session.call_tool("pattern_insights", {"min_strength": 0.55}))
        assert [p["kind"] for p in strong["patterns"]] == ["hotspot"]
        result = await session.call_tool("pattern_insights", {"limit": 1})
        assert "hotspot" in result.content[0].text  # type: ignore[union-attr]

        bad = await session.call_tool("pattern_insights", {"kind": "hot"})
        assert bad.is_error
        bad = await session.call_tool("pattern_insights", {"min_strength": 2})
        assert bad.is_error
