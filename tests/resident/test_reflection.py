"""The resident reflects on a session soon after it ends (the reflect cycle on its own thread,
whatever the consolidation interval), and not while it goes on."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from tests.resident.support import hook, memlode, wait_ready, wait_until


def test_the_resident_reflects_after_a_session_ends(
    workdir: Path, memlode_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMLODE_CONSOLIDATE_EVERY", "24")
    monkeypatch.setenv("MEMLODE_REFLECT_CHECK", "1")
    base = {"session_id": "s1", "cwd": str(workdir)}
    start = {**base, "hook_event_name": "SessionStart", "source": "startup"}
    assert hook("session-start", start, cwd=workdir).returncode == 0
    failure = {
        **base,
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_use_id": "toolu_1",
        "tool_input": {"command": "npm test"},
        "error": "Exit code 1\nError: expected 200, got 500 (GET /health)",
        "is_interrupt": False,
    }
    assert hook("post-tool-failure", failure, cwd=workdir).returncode == 0
    assert memlode("resident", cwd=workdir).returncode == 0
    wait_ready(memlode_home)
    db = memlode_home / "memlode.db"

    def runs() -> list[tuple[str, str]]:
        with sqlite3.connect(db) as conn:
            return conn.execute(
                "SELECT kind, details FROM consolidation_log WHERE finished_at IS NOT NULL"
            ).fetchall()

    def insights() -> list[str]:
        with sqlite3.connect(db) as conn:
            return [
                str(r[0])
                for r in conn.execute(
                    "SELECT content FROM memories WHERE source = 'consolidation'"
                    " AND memory_type = 'insight'"
                )
            ]

    # the run when due (never ran): the session goes on, nothing to reflect on yet
    assert wait_until(lambda: any(kind == "reflect" for kind, _ in runs()), timeout=30)
    assert insights() == []
    end = {**base, "hook_event_name": "SessionEnd", "reason": "exit"}
    assert hook("session-end", end, cwd=workdir).returncode == 0
    assert wait_until(lambda: insights(), timeout=30)
    [text] = insights()
    assert text.startswith("Still open in session s1 (") and "expected 200, got 500" in text
    reflected = [json.loads(d) for kind, d in runs() if kind == "reflect"]
    # one run reflected on the ended session; a later check (every second here) finds nothing
    # new, and may have finished before these lines read the log
    assert sum(run["counts"]["new"] for run in reflected) == 1
    assert [kind for kind, _ in runs()].count("cluster") == 1  # the interval's run only
